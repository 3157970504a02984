package index

// Decode exposes decode to the fuzz target, which feeds it index bodies
// without writing a file for each.
var Decode = decode
