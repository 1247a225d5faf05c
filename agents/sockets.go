package agents

import "context"

// SocketGuard is the optional half of a GuardedTab that holds its pages'
// WebSockets: the browser cannot pause a socket's handshake nor read what
// a socket sends before it leaves, so a guarded tab's pages open sockets
// only to their own origin and the hosts AllowSockets names, and the guard
// names the run's sites there before each action.
type SocketGuard interface {
	AllowSockets(ctx context.Context, hosts []string) error
}

// allowSockets tells a socket-holding tab the run's sites. Best effort: a
// tab that cannot hear it still refuses sockets to hosts it was not told.
func (w *watchedTab) allowSockets(ctx context.Context) {
	sg, ok := w.guarded.(SocketGuard)
	if !ok {
		return
	}
	_ = sg.AllowSockets(ctx, w.sites()) // see above: failing only narrows where sockets go
}
