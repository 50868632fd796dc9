package servermutants

// inputMutants are the defects of input requests and a task's own run.
var inputMutants = []Mutant{}
