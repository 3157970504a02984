//go:build !linux

package store

import "errors"

// exchange is not available: the caller renames.
func exchange(a, b string) error { return errors.ErrUnsupported }
