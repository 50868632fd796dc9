#!/usr/bin/env bash
# The storecheck GitHub Action's step (action.yml): get the binary, run the command with
# JSON and JUnit reports into $RUNNER_TEMP, name them in $GITHUB_OUTPUT, append the
# report's Markdown to $GITHUB_STEP_SUMMARY, and exit with storecheck's status.
#
# Inputs (environment): INPUT_COMMAND run|probe, INPUT_ARGS the command's arguments,
# INPUT_VERSION a release tag or latest, INPUT_BINARY a binary to use instead.
# STORECHECK_RELEASES is where releases are downloaded from (default GitHub's).
set -euo pipefail

log() { printf 'storecheck-action: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }

: "${RUNNER_TEMP:?not set: run by a GitHub Actions runner}"
: "${GITHUB_OUTPUT:?not set: run by a GitHub Actions runner}"
: "${GITHUB_STEP_SUMMARY:?not set: run by a GitHub Actions runner}"
RELEASES="${STORECHECK_RELEASES:-https://github.com/storecheck/storecheck/releases}"

command="${INPUT_COMMAND:-run}"
case "$command" in
run | probe) ;;
*) die "command must be run or probe, not '$command'" ;;
esac

# platform: the release archive's OS_ARCH and extension for this runner.
platform() {
	local os arch
	case "${RUNNER_OS:-$(uname -s)}" in
	Linux) os=linux ;;
	macOS | Darwin) os=darwin ;;
	Windows | MINGW* | MSYS*) os=windows ;;
	*) die "no storecheck release for the OS ${RUNNER_OS:-$(uname -s)}" ;;
	esac
	case "${RUNNER_ARCH:-$(uname -m)}" in
	X64 | x86_64 | amd64) arch=amd64 ;;
	ARM64 | aarch64 | arm64) arch=arm64 ;;
	*) die "no storecheck release for the architecture ${RUNNER_ARCH:-$(uname -m)}" ;;
	esac
	printf '%s_%s\n' "$os" "$arch"
}

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}

# download VERSION: fetch the release's archive for this runner and its SHA256SUMS, check
# the archive against it, unpack it, and print the binary's path.
download() {
	local version="$1" plat ext name dir want got
	if [ "$version" = latest ]; then
		# The latest release's page redirects to its tag's: no API call, no token.
		version="$(curl -fsSL -o /dev/null -w '%{url_effective}' "$RELEASES/latest")" || die "no latest release at $RELEASES"
		version="${version##*/}"
	fi
	plat="$(platform)"
	ext=tar.gz
	[ "${plat%%_*}" = windows ] && ext=zip
	name="storecheck_${version#v}_${plat}.${ext}"
	dir="$RUNNER_TEMP/storecheck-$version"
	mkdir -p "$dir"
	log "downloading $name ($RELEASES/download/$version/)"
	curl -fsSL -o "$dir/$name" "$RELEASES/download/$version/$name" || die "no $name in release $version"
	curl -fsSL -o "$dir/SHA256SUMS" "$RELEASES/download/$version/SHA256SUMS" || die "no SHA256SUMS in release $version"
	want="$(awk -v n="$name" '$2 == n { print $1 }' "$dir/SHA256SUMS")"
	got="$(sha256 "$dir/$name")"
	[ -n "$want" ] && [ "$want" = "$got" ] || die "$name: sha256 $got, SHA256SUMS says '${want}'"
	if [ "$ext" = zip ]; then
		unzip -q -o "$dir/$name" -d "$dir"
		echo "$dir/storecheck.exe"
	else
		tar -xzf "$dir/$name" -C "$dir"
		echo "$dir/storecheck"
	fi
}

if [ -n "${INPUT_BINARY:-}" ]; then
	bin="$INPUT_BINARY"
	[ -x "$bin" ] || die "binary $bin is not an executable file"
else
	bin="$(download "${INPUT_VERSION:-latest}")"
fi

# The arguments split as a shell splits words, quotes and backslashes honoured, nothing
# expanded (xargs's quoting).
args=()
if [ -n "${INPUT_ARGS:-}" ]; then
	mapfile -d '' args < <(printf '%s' "$INPUT_ARGS" | xargs printf '%s\0') || die "args: unbalanced quotes in: $INPUT_ARGS"
fi

out="$(mktemp -d "$RUNNER_TEMP/storecheck.XXXXXX")"
json="$out/storecheck.json"
junit="$out/storecheck.xml"
code=0
"$bin" "$command" --json "$json" --junit "$junit" "${args[@]}" || code=$?
{
	echo "json=$json"
	echo "junit=$junit"
	echo "exit-code=$code"
} >>"$GITHUB_OUTPUT"
if [ -s "$json" ]; then
	"$bin" report "$json" --markdown >>"$GITHUB_STEP_SUMMARY" || log "no Markdown summary: storecheck report failed"
else
	printf '### storecheck %s\n\nNo report: storecheck exited %d before writing one (see the step log).\n' "$command" "$code" >>"$GITHUB_STEP_SUMMARY"
fi
exit "$code"
