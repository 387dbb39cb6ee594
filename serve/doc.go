// Package serve serves the cortex-tui dashboard over SSH (charmbracelet/wish and its Bubble Tea
// middleware), so that a class connects with `ssh -p 2222 HOST` and nothing installed. Every
// session gets the full dashboard at its own terminal's size, colour profile and NO_COLOR, with
// its own simulator; a resize, a disconnect or ctrl+c ends that session only, and a session
// leaves nothing running behind it.
//
// It is safe by default: it listens on loopback unless told otherwise, and refuses an address
// other machines can reach unless the keys allowed are named (or any key explicitly allowed);
// the host key is generated once, private, in the data directory; there is no shell, no
// command, no port, agent or X11 forwarding and no file access: sessions open the built-in
// scenarios and lessons and the files the operator named, through the bounded loader and within
// the cost model's budget. Sessions are capped, idle ones closed, and every text a client
// sends (its user name, terminal type, environment) is made inert before it reaches a screen
// or the log, which gets one line per session.
//
// Progress is kept per SSH user, by the fingerprint of the key they connect with, in the data
// directory (ReadProgress reads it back).
package serve
