// Package specclient holds specclient.mjs, an MCP client written from the MCP
// specification alone, in another language than the server (Node, no SDK and no npm
// packages), and the tests that run it against storecheck's reference MCP server
// (storecheck serve --mcp) over Streamable HTTP and stdio, in both eras of MCP tasks
// (2025-11-25 and the 2026-07-28 tasks extension), with two principals and a caller
// without credentials. Every assertion of the script quotes the specification sentence it
// checks; the tests fail with the script's output when one does not hold, and the
// server's deliberate defects (package mcp/servermutants) prove that they can.
package specclient
