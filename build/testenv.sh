#!/usr/bin/env bash
# testenv.sh runs a command inside the environment Vroom's tests need, built
# from scratch and torn down afterwards whatever the command's outcome:
#   - a throwaway HOME and XDG dirs,
#   - Xvfb on a free display,
#   - a private D-Bus session bus with gnome-keyring's Secret Service,
#     unlocked,
#   - PulseAudio with two null sinks: vroom_speaker (the default sink) and
#     vroom_micfeed (whose monitor is the default source, so a clip played
#     into it is what "the microphone" hears), each with a low-latency reader
#     so the idle sink does not stall new clients.
# Each service is stopped by its own PID.
set -euo pipefail

root=$(mktemp -d /tmp/vroom-testenv.XXXXXX)
pids=()

cleanup() {
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[i]}" 2>/dev/null || true
  done
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    wait "${pids[i]}" 2>/dev/null || true
  done
  rm -rf "$root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_for DESCRIPTION COMMAND... polls COMMAND until it succeeds, for 20 s.
wait_for() {
  local what=$1
  shift
  local deadline=$((SECONDS + 20))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS > deadline)); then
      echo "testenv: $what did not start within 20 s" >&2
      return 1
    fi
    sleep 0.05
  done
}

# Keep the build caches of the real HOME: only the app's own state is fresh.
export GOPATH GOCACHE GOMODCACHE npm_config_cache
GOPATH=$(go env GOPATH) GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE)
npm_config_cache=$(npm config get cache)
export HOME=$root/home XDG_CONFIG_HOME=$root/home/.config XDG_DATA_HOME=$root/home/.local/share
export XDG_CACHE_HOME=$root/home/.cache XDG_RUNTIME_DIR=$root/run
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME"
mkdir -m 700 "$XDG_RUNTIME_DIR"

# Xvfb on the first free display.
n=90
while [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ]; do n=$((n + 1)); done
Xvfb ":$n" -screen 0 1280x800x24 -nolisten tcp >"$root/xvfb.log" 2>&1 &
pids+=($!)
export DISPLAY=":$n"
wait_for "Xvfb" xdpyinfo

# D-Bus session bus.
dbus-daemon --session --nofork --nopidfile --address="unix:path=$root/bus" >"$root/dbus.log" 2>&1 &
pids+=($!)
export DBUS_SESSION_BUS_ADDRESS="unix:path=$root/bus"
wait_for "dbus" dbus-send --session --dest=org.freedesktop.DBus --print-reply /org/freedesktop/DBus org.freedesktop.DBus.ListNames

# gnome-keyring with an unlocked login keyring.
gnome-keyring-daemon --foreground --unlock --components=secrets < <(printf 'vroom-test') >"$root/keyring.log" 2>&1 &
pids+=($!)
wait_for "gnome-keyring" sh -c 'dbus-send --session --dest=org.freedesktop.DBus --print-reply /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep -q "boolean true"'

# PulseAudio with the two null sinks.
mkdir -p "$root/pulse"
export PULSE_RUNTIME_PATH=$root/pulse PULSE_STATE_PATH=$root/pulse PULSE_SERVER="unix:$root/pulse/native"
pulseaudio -n --daemonize=no --exit-idle-time=-1 --disallow-exit --disable-shm=false \
  --log-target=file:"$root/pulse.log" \
  -L "module-native-protocol-unix auth-anonymous=1 socket=$root/pulse/native" \
  -L "module-null-sink sink_name=vroom_speaker sink_properties=device.description=VroomSpeaker" \
  -L "module-null-sink sink_name=vroom_micfeed sink_properties=device.description=VroomMicFeed" &
pids+=($!)
wait_for "pulseaudio" pactl info
pactl set-default-sink vroom_speaker
pactl set-default-source vroom_micfeed.monitor
for sink in vroom_speaker vroom_micfeed; do
  parec --latency-msec=10 -d "$sink.monitor" >/dev/null 2>&1 &
  pids+=($!)
done

export VROOM_TESTENV=1
set +e
"$@"
rc=$?
set -e
# A failed run shows what the services said: a window that could not
# open, a sink that went away, is often explained there.
if ((rc != 0)); then
  for log in xvfb dbus keyring pulse; do
    if [ -s "$root/$log.log" ]; then
      echo "== testenv: the end of $log.log"
      tail -n 20 "$root/$log.log"
    fi
  done
fi
exit $rc
