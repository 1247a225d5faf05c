#!/usr/bin/env bash
# deps.sh installs the Debian/Ubuntu packages Vroom needs to build, run and
# test, when any is missing. It uses sudo unless already root. Go (1.26+) and
# Node.js (20.19+) are expected on PATH.
set -euo pipefail

packages=(
  build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev
  chromium poppler-utils
  xvfb xauth x11-utils xdotool xclip imagemagick fonts-dejavu-core
  pulseaudio pulseaudio-utils sox libsox-fmt-pulse espeak-ng
  gnome-keyring dbus dbus-x11 libsecret-tools
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

for tool in go node npm; do
  if ! command -v "$tool" >/dev/null; then
    echo "deps: $tool is not on PATH; install Go 1.26+ and Node.js 20.19+ first" >&2
    exit 1
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
