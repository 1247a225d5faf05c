package testenv

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// PrivatePulse starts a PulseAudio of the test's own, with one null sink
// named sink, and returns its address for PULSE_SERVER ("unix:SOCKET") and
// a kill that SIGKILLs it. Fault tests kill the server mid-message; the
// shared server of build/testenv.sh, which other tests use, is never
// touched. The server is killed when the test ends, whatever the test did.
func PrivatePulse(tb testing.TB, sink string) (server string, kill func()) {
	tb.Helper()
	prog, err := exec.LookPath("pulseaudio")
	if err != nil {
		Missing(tb, "pulseaudio")
	}
	dir := tb.TempDir()
	sock := dir + "/native"
	// Daemonized, pulseaudio returns once it is ready to serve.
	cmd := exec.Command(prog, "-D", "-n", "--exit-idle-time=-1", "--disallow-exit",
		"--use-pid-file=yes", "--log-target=file:"+dir+"/log",
		"-L", "module-native-protocol-unix auth-anonymous=1 socket="+sock,
		"-L", "module-null-sink sink_name="+sink)
	// Off the session bus: the shared PulseAudio owns org.PulseAudio1 there.
	cmd.Env = append(os.Environ(), "PULSE_RUNTIME_PATH="+dir, "PULSE_STATE_PATH="+dir, "HOME="+dir,
		"DBUS_SESSION_BUS_ADDRESS=unix:path="+dir+"/no-bus")
	if out, err := cmd.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(dir + "/log")
		tb.Fatalf("pulseaudio: %v: %s%s", err, out, log)
	}
	b, err := os.ReadFile(dir + "/pid")
	if err != nil {
		tb.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		tb.Fatal(err)
	}
	// By its own PID: the daemon is no child of the test.
	kill = func() { syscall.Kill(pid, syscall.SIGKILL) }
	tb.Cleanup(kill)
	return "unix:" + sock, kill
}
