#!/usr/bin/env python3
"""Import loops between the modules of one crate (a check for reviews, not a build step).

Every reference `crate::a::b...` / `super::...` in code (use lines and inline paths, comments
and doc comments stripped) becomes an edge from the referring file's module to the longest
existing module prefix of the path. `mod x;` declarations are not edges (a parent naming its
children is not a dependency). Strongly connected components with more than one module are
loops. `--top` merges every module into its top-level module first (so `kernel::operators`
counts as `kernel`). Usage: python3 tools/module_loops.py CRATE/src [--top]
"""
import os, re, sys

root = sys.argv[1]; top = '--top' in sys.argv
mods = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if not f.endswith('.rs'): continue
        p = os.path.relpath(os.path.join(d, f), root)[:-3].split(os.sep)
        if p[-1] in ('mod', 'lib', 'main'): p = p[:-1]
        mods[tuple(p)] = os.path.join(d, f)

def strip(src):
    src = re.sub(r'/\*.*?\*/', '', src, flags=re.S)
    src = re.sub(r'//[^\n]*', '', src)
    return re.sub(r'"(\\.|[^"\\])*"', '""', src)

def expand(prefix, body):
    # expand `a::{b, c::{d}}` groups into flat paths
    out = []
    body = body.strip()
    m = re.match(r'^([\w:]*?)(::)?\{(.*)\}$', body, re.S)
    if m:
        head = [s for s in m.group(1).split('::') if s]
        depth, cur, parts = 0, '', []
        for ch in m.group(3):
            if ch == ',' and depth == 0: parts.append(cur); cur = ''; continue
            depth += ch == '{'; depth -= ch == '}'; cur += ch
        parts.append(cur)
        for part in parts:
            if part.strip(): out += expand(prefix + head, part)
    else:
        out.append(prefix + [s for s in re.split(r'::', body.split(' as ')[0]) if s])
    return out

edges = {m: set() for m in mods}
for m, path in mods.items():
    src = strip(open(path).read())
    # An inline `#[cfg(test)] mod tests { use super::*; }` refers to this file, not its parent:
    # drop inline test modules (by convention the end of the file).
    t = re.search(r'#\[cfg\(test\)\]\s*mod\s+\w+\s*\{', src)
    if t: src = src[:t.start()]
    # module of this file: tests modules inside count as the file itself
    paths = []
    for u in re.finditer(r'\buse\s+([^;]+);', src):
        paths += expand([], u.group(1))
    for u in re.finditer(r'\b(crate|super|self)((?:::\w+)+)', src):
        paths.append([u.group(1)] + u.group(2).split('::')[1:])
    is_dir = os.path.basename(path) in ('mod.rs', 'lib.rs')
    for p in paths:
        if not p: continue
        if p[0] == 'crate': base, rest = (), p[1:]
        elif p[0] in ('super', 'self'):
            base = m if is_dir else m[:-1]
            rest = p[1:]
            if p[0] == 'super' and is_dir: base = m[:-1]
            if p[0] == 'self': base = m
            while rest and rest[0] == 'super': base, rest = base[:-1], rest[1:]
        else: continue
        tgt = base
        for s in rest:
            if base + (s,) in mods or tuple(list(tgt) + [s]) in mods: tgt = tgt + (s,)
            else: break
        if top: src_m, tgt = m[:1], tgt[:1]
        else: src_m = m
        if tgt != src_m and tgt != ():
            edges.setdefault(src_m, set()).add(tgt)

if top:
    e2 = {}
    for a, bs in edges.items():
        e2.setdefault(a[:1], set()).update(b for b in bs if b != a[:1])
    edges = e2
# Tarjan
index, low, stack, on, sccs, i = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = i[0]; i[0] += 1; stack.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in index: visit(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v: break
        sccs.append(c)
for v in list(edges):
    if v not in index: visit(v)
loops = [c for c in sccs if len(c) > 1]
name = lambda t: '::'.join(t) or 'crate'
print(f"{root}: {len(edges)} modules, {sum(len(b) for b in edges.values())} edges, {len(loops)} loop(s)")
for c in loops:
    cs = set(c)
    print('  loop:', ', '.join(sorted(name(x) for x in c)))
    for a in sorted(c):
        for b in sorted(edges[a] & cs): print(f'    {name(a)} -> {name(b)}')
