#!/usr/bin/env python3
"""test/e2e/doc_links.py FILE...: every relative link in these Markdown files
resolves: the file (or directory) exists, and a #anchor names a heading of
the target page (GitHub's slugs: lower case, punctuation dropped, spaces to
hyphens, -1, -2 ... for repeats) or an <a id="..."> in it. Links in code
blocks and code spans are not links. Prints one line per broken link,
"FILE:LINE: TARGET: why", and exits 1 if there was any."""
import os
import re
import sys

LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')


def prose_lines(path):
    """(number, line) of the lines outside fenced code blocks."""
    fence = False
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if line.lstrip().startswith('```'):
                fence = not fence
            elif not fence:
                yield n, line


def slug(heading):
    s = re.sub(r'[^\w\- ]', '', heading.strip().lower())
    return s.replace(' ', '-')


def anchors(path):
    """The #fragments a page answers to: its headings' slugs and its <a id>s."""
    seen = {}
    out = set()
    for _, line in prose_lines(path):
        out.update(re.findall(r'<a (?:id|name)="([^"]+)"', line))
        m = re.match(r'^#{1,6}\s+(.*?)\s*$', line)
        if m:
            s = slug(m.group(1))
            k = seen.get(s, 0)
            seen[s] = k + 1
            out.add(s if k == 0 else f'{s}-{k}')
    return out


def main(files):
    bad = 0
    cache = {}
    for path in files:
        base = os.path.dirname(path)
        for n, line in prose_lines(path):
            # a link inside a code span is shown, not followed
            line = re.sub(r'`[^`]*`', '', line)
            for target in LINK.findall(line):
                if re.match(r'^[a-z][a-z0-9+.-]*:', target):
                    continue  # http:, https:, mailto:
                file, _, frag = target.partition('#')
                dest = os.path.normpath(os.path.join(base, file)) if file else path
                if not os.path.exists(dest):
                    print(f'{path}:{n}: {target}: no such file')
                    bad += 1
                    continue
                if frag and dest.endswith('.md'):
                    if dest not in cache:
                        cache[dest] = anchors(dest)
                    if frag not in cache[dest]:
                        print(f'{path}:{n}: {target}: no heading or anchor "{frag}" in {dest}')
                        bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
