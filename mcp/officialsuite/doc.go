// Package officialsuite runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in package.json and package-lock.json here)
// against storecheck's reference MCP server (mcp/server) over memstore and Postgres:
// every tasks-* scenario, each check's verdict pinned (TestOfficialTasksScenarios). A
// check pinned as failing names why: a disagreement with the specification's text, or a
// part of the protocol the server does not offer. Node 20 runs the suite through
// node20.mjs (the suite's bundle imports fs.globSync, which Node adds in 22).
package officialsuite
