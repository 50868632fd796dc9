package servermutants

// capabilityMutants are the defects of what the server declares and serves: capabilities, sessionless requests, cursors and pages.
var capabilityMutants = []Mutant{}
