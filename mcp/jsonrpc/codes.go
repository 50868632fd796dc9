// Package jsonrpc holds the JSON-RPC 2.0 and MCP error codes that storecheck's MCP server
// answers with and its probe judges by, in one place.
package jsonrpc

// Error codes of JSON-RPC 2.0 and of MCP.
const (
	CodeParse          = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
	// CodeHeaderMismatch: an Mcp-Name or Mcp-Method header disagrees with the body.
	CodeHeaderMismatch = -32020
	// CodeMissingCapability is the tasks extension's "Missing Required Client
	// Capability".
	CodeMissingCapability = -32021
)
