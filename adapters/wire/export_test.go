package wire

// Internals the layer benchmark (layers_test.go) times one by one.
var (
	AppendRequest    = appendRequest
	AppendAnswer     = appendAnswer
	DecodeRequest    = decodeRequest
	EncodeModernTask = encodeModernTask
	DecodeModernTask = decodeModernTask
	CallerArg        = callerArg
	AppendArgs       = appendArgs
)
