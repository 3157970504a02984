package index

// Decode exposes decode to the fuzz target, which feeds it index bodies
// without writing a file for each.
var Decode = decode

// GridAverage exposes gridAverage: the tests that work a weight out by
// hand take the averages it gives.
var GridAverage = gridAverage
