"""Summarize one run of mpi4py's test suite (test/main.py -v) under mpiexec.

usage: summarize.py NP LOGPREFIX MPIEXEC_STATUS VERBOSE

Reads LOGPREFIX.<rank> for every rank (unittest's verbose output). Prints a
first line "ran R passed P skipped S failed F" (rank 0's counts; a test
counts as failed when it failed or errored on any rank), then the failed
tests with the ranks they failed on and the first lines of their
tracebacks. Exits 1 when a test failed or a rank's log is missing its
final "Ran N tests" line (crash, hang, abort), else 0.
"""
import re
import sys

RAN = re.compile(r"^Ran (\d+) tests? in ")
FINAL = re.compile(r"^(OK|FAILED)(?: \((.*)\))?\s*$")
HEADER = re.compile(r"^(FAIL|ERROR): (\S+) \(([^)]*)\)")
STARTED = re.compile(r"^(\S+) \(([\w.]+)\)(?: \.\.\.|$)")
SEP = "=" * 70


def parse(path):
    """Counts, failures {name: first traceback lines} and last started test."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    res = {"ran": None, "counts": {}, "fail": {}, "last": None, "tail": lines[-15:]}
    for i, line in enumerate(lines):
        m = STARTED.match(line)
        if m:
            res["last"] = m.group(2)
        m = HEADER.match(line)
        if m and i > 0 and lines[i - 1] == SEP:
            body = []
            for follow in lines[i + 2:]:
                if follow == SEP or follow.startswith("-" * 70):
                    break
                body.append(follow)
            # keep the last lines: the exception and where it came from
            short = [b for b in body if b.strip()][-4:]
            res["fail"][m.group(3)] = (m.group(1), short)
        m = RAN.match(line)
        if m:
            res["ran"] = int(m.group(1))
        m = FINAL.match(line)
        if m and res["ran"] is not None:
            for item in (m.group(2) or "").split(","):
                if "=" in item:
                    k, v = item.strip().split("=")
                    res["counts"][k] = int(v)
    return res


def main():
    np_, prefix, status, verbose = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "1"
    ranks = [parse(f"{prefix}.{r}") for r in range(np_)]
    problems = []
    failed = {}  # test -> list of (rank, kind, lines)
    for r, res in enumerate(ranks):
        if res is None:
            problems.append(f"rank {r}: no log (did it start?)")
            continue
        if res["ran"] is None:
            problems.append(f"rank {r}: no 'Ran N tests' line: crashed, aborted or timed out"
                            f" (last test started: {res['last']})")
            problems.extend(f"    rank {r} | {t}" for t in res["tail"])
        for name, (kind, lines) in res["fail"].items():
            failed.setdefault(name, []).append((r, kind, lines))
    r0 = ranks[0] if ranks and ranks[0] and ranks[0]["ran"] is not None else None
    if r0 is None:
        r0 = next((x for x in ranks if x and x["ran"] is not None), {"ran": 0, "counts": {}})
    ran = r0["ran"] or 0
    skipped = r0["counts"].get("skipped", 0)
    xfail = r0["counts"].get("expected failures", 0)
    nfail = len(failed)
    passed = max(ran - skipped - nfail - xfail, 0)
    print(f"ran {ran} passed {passed} skipped {skipped} failed {nfail}")
    for name in sorted(failed):
        where = failed[name]
        print(f"   {where[0][1]}: {name} (rank{'s' if len(where) > 1 else ''} "
              f"{','.join(str(w[0]) for w in where)})")
        for line in where[0][2]:
            print(f"      | {line}")
    for p in problems:
        print(f"   {p}")
    if verbose and ranks and ranks[0]:
        print(f"   (rank 0 log: {prefix}.0)")
    sys.exit(1 if (nfail or problems or status not in ("0",)) else 0)


if __name__ == "__main__":
    main()
