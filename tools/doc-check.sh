#!/bin/bash
# tools/doc-check.sh: host-only check that the documents cite only tests,
# test cases, programs and module functions that exist.  Prints TAP lines
# (an "ok" per check, or a "not ok" per missing thing); exit status
# non-zero on any failure.  Run by `make doc-check` and by `make check`.
#
# What it reads, and the citation forms the documents keep to:
#
#   Documentation/conformance.rst, the Test column of every table: names
#     separated by "," or ";"; a test's name (test_mpa, dp_rawpeer) is
#     followed by names of its cases; a case named before any test, or
#     after a ";", is a host unit test's.  Remarks go in parentheses (not
#     checked); "none" alone says no test covers the row.  The softiw_,
#     rx_, tx_, cep_ and mem_ identifiers and SOFTIW_ constants of the
#     "Enforced in" column must be in the module.
#   Documentation/security.rst and testing.rst, prose: a ``NAME`` shaped
#     like a test (dp_*, sec_*, softiw_* without "()", test_*, fuzz_*)
#     must be a test; ``FILE.c``, ``.sh``, ``.py`` and ``paths/`` into
#     the tree must exist; a case is cited as ``TEST`` ``CASE`` or
#     ``TEST`` case(s) ``CASE``, more following as ", ``CASE``" or
#     " and ``CASE``"; a harness case cited any other way fails.  Every
#     selftest has a row in testing.rst's selftest table and every row
#     is a selftest.
#
# Tests: selftests/softiw/NAME.sh (selftests), tests/unit/NAME.c and
# tests/fuzz/NAME.c (host tests).  Cases: RUN(NAME) of a host unit test;
# TEST()/TEST_F() of the kselftest-harness programs a selftest runs; for
# a selftest without one, a word of its script (dp_rawpeer's cases).
set -u
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
cd "$top" || exit 1
ST=selftests/softiw
CONF=Documentation/conformance.rst
SEC=Documentation/security.rst
TESTING=Documentation/testing.rst
failed=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# ---- what exists ----

declare -A TESTS CASES UNIT HARNESS CODE
selftests=
for f in "$ST"/*.sh; do
	n=${f##*/}
	n=${n%.sh}
	case $n in lib | dp_lib) continue ;; esac
	selftests="$selftests $n"
	TESTS[$n]=1
done
for f in tests/unit/test_*.c tests/fuzz/fuzz_*.c; do
	n=${f##*/}
	TESTS[${n%.c}]=1
done

# harness_cases FILE.c: the kselftest-harness cases FILE declares
harness_cases() {
	sed -n -e 's/^TEST_F( *[a-z0-9_]* *, *\([a-z0-9_]*\) *).*/\1/p' \
		-e 's/^TEST( *\([a-z0-9_]*\) *).*/\1/p' "$1"
}

# CASES["TEST CASE"]: host unit tests' RUN() lines
for f in tests/unit/test_*.c; do
	t=${f##*/}
	t=${t%.c}
	while read -r c; do
		CASES["$t $c"]=1
		UNIT[$c]=1
	done < <(sed -n 's/^[[:space:]]*RUN(\([a-z0-9_]*\));.*/\1/p' "$f")
done
# a selftest's cases: those of the harness programs it runs, else the
# words of its script
hprogs=$(grep -l '^TEST' "$ST"/*.c | sed 's|.*/||; s|\.c$||' | paste -sd'|')
for t in $selftests; do
	progs=$(grep -owE -- "$hprogs" "$ST/$t.sh" | sort -u)
	if [ -n "$hprogs" ] && [ -n "$progs" ]; then
		words=$(for p in $progs; do harness_cases "$ST/$p.c"; done)
	else
		words=$(grep -oE '[A-Za-z0-9_-]+' "$ST/$t.sh")
	fi
	for c in $words; do
		CASES["$t $c"]=1
	done
done
for f in "$ST"/*.c; do
	for c in $(harness_cases "$f"); do
		HARNESS[$c]=1
	done
done
while read -r w; do
	CODE[$w]=1
done < <(cat drivers/infiniband/sw/softiw/*.[ch] include/uapi/rdma/*.h |
	 grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u)
find . \( -name .git -o -path ./build \) -prune -o -type f -print |
	sed 's|^\./||' >"$tmp/files"

is_test() { [ -n "${TESTS[$1]+y}" ]; }
is_case() { [ -n "${CASES["$1 $2"]+y}" ]; }
testish() { [[ $1 =~ ^(dp|sec|softiw|test|fuzz)_[a-z0-9_]+$ ]]; }

# fail MSG: a "not ok" line for one failure of the current check
fail() {
	echo "not ok - $check: $*"
	bad=1
}

# verdict: the "ok" line of the current check when nothing failed
verdict() {
	if [ "$bad" = 0 ]; then
		echo "ok - $check"
	else
		failed=1
	fi
}

# ---- conformance.rst: the tables' columns ----

# cells COL FILE: "LINE<TAB>TEXT" of column COL of every list-table row
cells() {
	awk -v col="$1" '
	function flush() { if (n == col && text != "") print start "\t" text; text = "" }
	/^   \* - / { flush(); n = 1; start = NR; text = substr($0, 8); next }
	/^     - / && n { flush(); n++; start = NR; text = substr($0, 8); next }
	/^       +[^ ]/ && n { sub(/^ +/, ""); text = text " " $0; next }
	/^[^ ]/ || /^$/ { flush(); n = 0 }
	END { flush() }' "$2"
}

check="conformance.rst cites only tests and cases that exist"
bad=0
cells 3 $CONF >"$tmp/conf-tests"
[ -s "$tmp/conf-tests" ] || fail "no Test column found in $CONF"
while IFS=$'\t' read -r line cell; do
	[ "$cell" = Test ] && continue
	# remarks are in parentheses; backticks are optional
	s=${cell//\`/}
	while [[ $s =~ \([^\(\)]*\) ]]; do
		s=${s/"${BASH_REMATCH[0]}"/}
	done
	s=${s//;/ ; }
	s=${s//[,:]/ }
	read -r -a words <<<"$s"
	[ "${words[*]}" = none ] && continue
	[ ${#words[@]} -gt 0 ] || { fail "no test cited in $CONF:$line"; continue; }
	cur=
	for w in "${words[@]}"; do
		if [ "$w" = ";" ]; then
			cur=
		elif is_test "$w"; then
			cur=$w
		elif testish "$w"; then
			fail "missing $w (a test) cited in $CONF:$line"
		elif [ -n "$cur" ]; then
			is_case "$cur" "$w" ||
				fail "missing $w (a case of $cur) cited in $CONF:$line"
		else
			[ -n "${UNIT[$w]+y}" ] ||
				fail "missing $w (a host unit test case) cited in $CONF:$line"
		fi
	done
done <"$tmp/conf-tests"
verdict

check="conformance.rst names only module code that exists"
bad=0
cells 2 $CONF | awk -F'\t' '{
	s = " " $2
	while (match(s, /[^A-Za-z0-9_]((softiw|rx|tx|cep|mem)_[a-z0-9_]+|SOFTIW_[A-Z0-9_]+)/)) {
		print $1 "\t" substr(s, RSTART + 1, RLENGTH - 1)
		s = substr(s, RSTART + RLENGTH)
	}
}' >"$tmp/conf-code"
while IFS=$'\t' read -r line w; do
	[ -n "${CODE[$w]+y}" ] ||
		fail "missing $w (module code) named in $CONF:$line"
done <"$tmp/conf-code"
verdict

# ---- security.rst and testing.rst: prose ----

# paragraphs FILE: "LINE<TAB>TEXT", one line per paragraph, list item
# or table cell, whitespace collapsed
paragraphs() {
	awk '
	function flush() { if (text != "") print start "\t" text; text = "" }
	/^[[:space:]]*$/ { flush(); next }
	{
		l = $0
		if (sub(/^[[:space:]]*(\* -|-|\*) /, " ", l))
			flush()
		else
			sub(/^[[:space:]]+/, " ", l)
		if (text == "")
			start = NR
		text = text " " l
		gsub(/  +/, " ", text)
	}
	END { flush() }' "$1"
}

# citations: from paragraphs on stdin print "TEST<TAB>T<TAB>LINE",
# "CASE<TAB>T<TAB>C<TAB>LINE", "FILE<TAB>F<TAB>LINE" and, for every
# other backticked word, "WORD<TAB>W<TAB>LINE"
citations() {
	awk -F'\t' '
	function testish(t) {
		return t ~ /^(dp|sec|softiw|test|fuzz)_[a-z0-9_]+$/
	}
	{
		line = $1
		s = $2
		# parentheses hold remarks: a case list may run on after one,
		# or be inside one
		while (gsub(/ \([^()]*\)/, "", s))
			;
		split("", cited)
		t = s " " $2
		while (match(t, /``[^`]+``/)) {
			tok = substr(t, RSTART + 2, RLENGTH - 4)
			t = substr(t, RSTART + RLENGTH)
			if (!testish(tok))
				continue
			if (!match(t, /^ cases? /) && !match(t, /^ /))
				continue
			u = substr(t, RLENGTH + 1)
			while (match(u, /^``[a-z0-9][a-z0-9_-]*``/)) {
				c = substr(u, 3, RLENGTH - 4)
				print "CASE\t" tok "\t" c "\t" line
				cited[c] = 1
				u = substr(u, RLENGTH + 1)
				if (!match(u, /^(,? and |,? or |, )/))
					break
				u = substr(u, RLENGTH + 1)
			}
		}
		# every backticked word of the paragraph, remarks too
		t = $2
		while (match(t, /``[^`]+``/)) {
			tok = substr(t, RSTART + 2, RLENGTH - 4)
			t = substr(t, RSTART + RLENGTH)
			if (tok ~ /^build\//)
				;
			else if (tok ~ /^[A-Za-z0-9_.\/-]+\.(c|sh|py)$/ ||
			    tok ~ /^(tools|selftests|tests|userspace|drivers|include|Documentation)\/[A-Za-z0-9_.\/-]*$/)
				print "FILE\t" tok "\t" line
			else if (testish(tok))
				print "TEST\t" tok "\t" line
			else if (!(tok in cited))
				print "WORD\t" tok "\t" line
		}
	}'
}

for doc in $SEC $TESTING; do
	paragraphs "$doc" | citations | sed "s|\$|	$doc|"
done | sort -u >"$tmp/prose"

check="security.rst and testing.rst cite only tests, cases and files that exist"
bad=0
while IFS=$'\t' read -r kind a b c d; do
	case $kind in
	TEST)
		is_test "$a" || fail "missing $a (a test) cited in $c:$b"
		;;
	CASE)
		if is_test "$a" && ! is_case "$a" "$b"; then
			fail "missing $b (a case of $a) cited in $d:$c"
		fi
		;;
	FILE)
		f=${a%/}
		if [[ $a == */* ]]; then
			[ -e "$f" ] || grep -qF -- "/$f" "$tmp/files" ||
				fail "missing $a (a file) cited in $c:$b"
		else
			grep -qE -- "(^|/)${f//./\\.}\$" "$tmp/files" ||
				fail "missing $a (a file) cited in $c:$b"
		fi
		;;
	WORD)
		if [ -n "${HARNESS[$a]+y}" ]; then
			fail "case $a cited without its test (\`\`TEST\`\` \`\`$a\`\`) in $c:$b"
		fi
		;;
	esac
done <"$tmp/prose"
verdict

# ---- testing.rst's selftest table: one row per selftest ----

check="testing.rst's selftest table has a row for each selftest and no other"
bad=0
awk '/^selftest  / { on = 1; next }
	on && /^=+ / { if (++rule == 2) exit; next }
	on && /^[a-z]/ { print NR "\t" $1 }' $TESTING >"$tmp/rows"
[ -s "$tmp/rows" ] || fail "no selftest table found in $TESTING"
while IFS=$'\t' read -r line name; do
	[ -f "$ST/$name.sh" ] || fail "missing $name (a selftest) in $TESTING:$line"
done <"$tmp/rows"
for t in $selftests; do
	cut -f2 "$tmp/rows" | grep -qxF -- "$t" ||
		fail "selftest $t has no row in $TESTING's selftest table"
done
verdict
exit $failed
