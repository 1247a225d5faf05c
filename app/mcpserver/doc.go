// Package mcpserver serves Vroom to MCP clients (Claude Desktop, Claude
// Code, Cursor, the MCP Inspector) on the official Go SDK. The server is
// one object per process, whichever transport carries it (transport.go:
// stdio, or streamable HTTP on loopback behind a bearer token). run_task
// builds its run with runner.BuildRun like every face and reports the
// room's events as progress notifications (run.go); the engine tools let
// a client drive a tab itself through the agents' own adapter, gated by
// agents.Classify and the tab's exfiltration guard (tools.go, guard.go,
// driven.go); those tools are the tool table's page tools with the tab
// added, generated from agents.PageTools (pagetools.go); the client's
// uploads are only of the files it was started with (Env.Files), and its
// downloads are saved in the session's own folder under the data dir
// (Server.Downloads); confirmations and questions go to the client's user through
// elicitation (elicit.go); past runs are resources (resources.go). It
// speaks the protocol versions before 2026-07-28, whose servers may still
// send an elicitation in the middle of a tool call.
//
// It may import runner, runlog, config, remote, agents and browser; never
// app or cli.
package mcpserver
