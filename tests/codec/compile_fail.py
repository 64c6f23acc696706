#!/usr/bin/env python3
"""Each file in the case folder must fail to compile, and the compiler's
output must contain the sentence named on its first line (`// expect: ...`)."""
import pathlib
import subprocess
import sys

compiler, include, folder = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
failures = 0
cases = sorted(folder.glob("*.cpp"))
for case in cases:
    first = case.read_text().splitlines()[0]
    assert first.startswith("// expect: "), f"{case.name}: first line must be '// expect: ...'"
    expected = first[len("// expect: "):].strip()
    proc = subprocess.run([compiler, "-std=c++20", "-fsyntax-only", "-I", include, str(case)],
                          capture_output=True, text=True)
    output = proc.stdout + proc.stderr
    if proc.returncode == 0:
        print(f"FAIL {case.name}: compiled, but should not")
        failures += 1
    elif expected not in output:
        print(f"FAIL {case.name}: did not say '{expected}'\n{output[:3000]}")
        failures += 1
    else:
        print(f"ok   {case.name}")
if not cases:
    print("no cases found")
    failures += 1
print(f"{len(cases) - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
