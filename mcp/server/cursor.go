package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/storecheck/storecheck/reference"
)

// cursorPos is where a page ended: the last task's creation time and id. Tasks are
// listed oldest first, so a task created while a client pages comes after every cursor
// already issued: none is skipped or repeated.
type cursorPos struct {
	Created int64  `json:"c"`
	ID      string `json:"i"`
	Caller  string `json:"p"`
}

var errCursor = errors.New("not a cursor this server issued to this caller")

// writeCursor signs pos for caller: a cursor is opaque, and one forged, altered or
// issued to another caller is refused.
func (s *Server) writeCursor(pos cursorPos, caller reference.Caller) string {
	pos.Caller = caller.String()
	body, _ := json.Marshal(pos)
	enc := base64.RawURLEncoding.EncodeToString(body)
	return enc + "." + base64.RawURLEncoding.EncodeToString(s.sign(enc))
}

func (s *Server) readCursor(c string, caller reference.Caller) (cursorPos, error) {
	enc, sig, ok := strings.Cut(c, ".")
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || !hmac.Equal(got, s.sign(enc)) {
		return cursorPos{}, errCursor
	}
	body, err := base64.RawURLEncoding.DecodeString(enc)
	var pos cursorPos
	if err != nil || json.Unmarshal(body, &pos) != nil || pos.Caller != caller.String() {
		return cursorPos{}, errCursor
	}
	return pos, nil
}

func (s *Server) sign(enc string) []byte {
	m := hmac.New(sha256.New, s.secret[:])
	m.Write([]byte(enc))
	return m.Sum(nil)[:16]
}
