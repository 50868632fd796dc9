//go:build !linux

package wire

import "os"

// newStdout makes the pipe for the child's stdout: elsewhere than Linux, an os.Pipe read
// by the background reader (see fileSource).
func newStdout() (child *os.File, src source, err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	return w, fileSource{r}, nil
}

// pipeUnread says nothing elsewhere than Linux.
func pipeUnread(int) int { return -1 }
