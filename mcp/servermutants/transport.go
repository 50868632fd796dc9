package servermutants

// transportMutants are the defects of the transport: what a stdio server reads, a server that dies.
var transportMutants = []Mutant{}
