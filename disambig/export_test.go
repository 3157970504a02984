package disambig

// DecodeCache exposes decodeCache to the fuzz target, which feeds it
// cache bodies without writing a file for each.
var DecodeCache = decodeCache
