//go:build linux

package wire_test

import "github.com/storecheck/storecheck/adapters/wire"

var spinReader = wire.SpinReader
