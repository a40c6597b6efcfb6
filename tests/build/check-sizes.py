#!/usr/bin/env python3
"""Rooms of a readable size: no C file in src/ or cmd/ over 1200 lines,
no function over 120, and a README a user reads (at most 250 lines). A function is counted from the line of its opening
brace in column 0 to the closing brace in column 0 (the project's style),
so a long one cannot hide in a macro or an odd indentation.
    check-sizes.py SOURCE_ROOT"""
import pathlib
import sys

MAX_FILE_LINES = 1200
MAX_FUNCTION_LINES = 120
MAX_README_LINES = 250


def function_spans(lines):
    start = None
    for number, line in enumerate(lines, 1):
        if line.startswith('{'):
            start = number
        elif line.startswith('}') and start is not None:
            head = next((lines[i].strip() for i in range(start - 2, -1, -1)
                         if '(' in lines[i]), '?')
            yield head, number - start + 1
            start = None


def main():
    root = pathlib.Path(sys.argv[1])
    failures = []
    files = sorted(p for folder in ('src', 'cmd') for p in (root / folder).rglob('*.[ch]'))
    for path in files:
        lines = path.read_text(errors='replace').split('\n')
        name = path.relative_to(root)
        if len(lines) > MAX_FILE_LINES:
            failures.append(f'{name}: {len(lines)} lines (at most {MAX_FILE_LINES})')
        if path.suffix != '.c':
            continue
        for head, length in function_spans(lines):
            if length > MAX_FUNCTION_LINES:
                failures.append(f'{name}: {head[:70]}: {length} lines '
                                f'(at most {MAX_FUNCTION_LINES})')
    readme = root / 'README.md'
    readme_lines = len(readme.read_text(errors='replace').splitlines()) if readme.exists() else 0
    if readme_lines > MAX_README_LINES:
        failures.append(f'README.md: {readme_lines} lines (at most {MAX_README_LINES})')
    if not files:
        print('FAIL: no sources found under', root)
        return 1
    for failure in failures:
        print('FAIL:', failure)
    if not failures:
        print(f'ok   {len(files)} files, none over {MAX_FILE_LINES} lines, '
              f'no function over {MAX_FUNCTION_LINES}')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
