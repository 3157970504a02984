//go:build !unix

package store

import "io/fs"

// fileOwner reports no owner where the system has none in Unix's sense.
var fileOwner = func(fs.FileInfo) (uint32, bool) { return 0, false }

var currentUser = func() uint32 { return 0 }
