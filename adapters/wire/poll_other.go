//go:build !unix

package wire

import "io"

func pollable(r io.Reader) io.Reader { return r }
