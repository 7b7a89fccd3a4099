#!/usr/bin/env python3
"""Reads an MPI standard-ABI header and writes the programs that
tests/abi/check_abi.sh compiles to compare two headers.

The list of names to probe always comes from the reference header, so a
constant, type or function the reference has and ours lacks cannot slip
through. Vendor extensions (MPIX_ / PMPIX_) are ignored.

Subcommands:
  probe REF OUT.c        program printing value/size/type of every constant,
                         size/offset of every type and struct field and (C++)
                         the type of every function; compiled once against
                         each header, the outputs must be identical.
  redecl REF OUT.c       C file: includes the header under test, then
                         repeats the reference's typedefs and function
                         declarations; any incompatible one fails to compile.
  names REF OURS         compares the sets of names; prints what is missing
                         or extra in OURS; exit status 1 if they differ.
  count REF              prints "<constants> <functions>".
"""
import re
import sys


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', text)


def is_vendor(name):
    return name.startswith(('MPIX_', 'PMPIX_'))


class Header:
    """What a header declares: macros with values, enumerators, typedefs,
    struct fields and function prototypes."""

    def __init__(self, path):
        text = strip_comments(open(path, encoding='utf-8').read())
        self.macros = {}          # name -> replacement text
        self.enumerators = []     # names, in order
        self.typedefs = {}        # name -> declaration statement (one line)
        self.functypes = set()    # typedef names that denote function types
        self.structs = {}         # typedef name -> [(field, array_len or None)]
        self.functions = {}       # name -> (return type, statement)
        self._preprocessor(text)
        body = '\n'.join(l for l in text.splitlines() if not l.lstrip().startswith('#'))
        body = body.replace('extern "C" {', ' ')
        for stmt in self._statements(body):
            self._statement(stmt)

    def _preprocessor(self, text):
        undefined = set()
        for line in text.splitlines():
            m = re.match(r'\s*#\s*define\s+(\w+)(?!\()\s*(.*)$', line)
            if m and m.group(2).strip():
                self.macros[m.group(1)] = m.group(2).strip()
            m = re.match(r'\s*#\s*undef\s+(\w+)', line)
            if m:
                undefined.add(m.group(1))
        # macros defined only while the header is read (#undef'd after use)
        # are substituted into the declarations that use them
        self.transient = {n: self.macros.pop(n) for n in undefined if n in self.macros}

    @staticmethod
    def _statements(body):
        depth, cur = 0, []
        for ch in body:
            if ch == '{':
                depth += 1
            elif ch == '}':
                depth -= 1
            if ch == ';' and depth == 0:
                stmt = ' '.join(''.join(cur).split())
                if stmt and stmt != '}':
                    yield stmt.lstrip('} ').strip()
                cur = []
            else:
                cur.append(ch)

    def _statement(self, s):
        for name, value in self.transient.items():
            s = re.sub(r'\b%s\b' % name, value, s)
        if s.startswith('typedef'):
            self._typedef(s)
        elif re.match(r'enum\b', s):
            self._enum_body(s)
        else:
            m = re.match(r'(.+?)\b(P?MPIX?_\w+)\s*\((.*)\)$', s)
            if m:
                self.functions[m.group(2)] = (m.group(1).strip(), s + ';')

    def _enum_body(self, s):
        m = re.search(r'\{(.*)\}', s)
        if not m:
            return
        for item in m.group(1).split(','):
            item = item.strip()
            if item:
                self.enumerators.append(re.match(r'(\w+)', item).group(1))

    def _typedef(self, s):
        if '{' in s:
            name = re.search(r'\}\s*(\w+)$', s).group(1)
            if re.match(r'typedef\s+enum', s):
                self._enum_body(s)
                tag = re.match(r'typedef\s+enum\s+(\w+)', s)
                self.typedefs[name] = ('typedef enum %s %s;' % (tag.group(1), name)
                                       if tag else None)
            else:
                fields = []
                for f in re.search(r'\{(.*)\}', s).group(1).split(';'):
                    fm = re.match(r'.*?(\w+)\s*(?:\[\s*(\w+)\s*\])?\s*$', f.strip())
                    if f.strip() and fm:
                        fields.append((fm.group(1), fm.group(2)))
                self.structs[name] = fields
                self.typedefs[name] = None  # anonymous struct: not repeatable
            return
        m = re.match(r'typedef\s+[\w\s\*]+?\(\s*\*?\s*(\w+)\s*\)\s*\(', s)
        if m:
            self.functypes.add(m.group(1))
            self.typedefs[m.group(1)] = s + ';'
            return
        m = re.match(r'typedef\s+(.+?)\s*\b(\w+)$', s)
        if m:
            if m.group(1).strip() in self.functypes:
                self.functypes.add(m.group(2))
            self.typedefs[m.group(2)] = s + ';'

    # -- the names that are part of the MPI interface
    def constants(self):
        names = [n for n in self.macros if n.startswith('MPI_')]
        names += [n for n in self.enumerators if n.startswith('MPI_')]
        return [n for n in names if not is_vendor(n)]

    def types(self):
        return [n for n in self.typedefs if n.startswith('MPI_') and not is_vendor(n)]

    def funcs(self):
        return [n for n in self.functions if not is_vendor(n)]

    def is_pointer_constant(self, name, seen=()):
        if name in self.enumerators:
            return False
        v = self.macros[name]
        if v in self.macros and v not in seen:
            return self.is_pointer_constant(v, seen + (name,))
        return '*' in v or re.match(r'\(\s*\(\s*MPI_\w+\s*\)', v) is not None


PROBE_PRELUDE = r'''/* generated by tests/abi/abi_probe.py: prints the ABI facts of the
 * header named by DMPI_ABI_HEADER (compile as C and as C++). */
#include DMPI_ABI_HEADER
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#ifdef __cplusplus
#include <typeinfo>
#define TYPE_OF(x) typeid(x).name()
#define PV(x) ((long long)(intptr_t)(x))
#else
#define TYPE_OF(x) "-"
#define PV(x) ((long long)(intptr_t)(x))
#endif
#define PI(x) ((long long)(x))
int main(void)
{
'''


def write_probe(ref, out):
    h = Header(ref)
    lines = [PROBE_PRELUDE]
    for n in h.constants():
        conv = 'PV' if h.is_pointer_constant(n) else 'PI'
        lines.append('    printf("const %s = %%lld size %%zu type %%s\\n", %s(%s), sizeof(%s), TYPE_OF(+(%s)));'
                     % (n, conv, n, n, n))
    for n in h.types():
        if n in h.functypes:
            lines.append('#ifdef __cplusplus')
            lines.append('    printf("functype %s %%s\\n", TYPE_OF(%s *));' % (n, n))
            lines.append('#endif')
            continue
        lines.append('    printf("type %s size %%zu type %%s\\n", sizeof(%s), TYPE_OF(%s));'
                     % (n, n, n))
    for s, fields in h.structs.items():
        if is_vendor(s):
            continue
        for f, _ in fields:
            lines.append('    printf("field %s.%s offset %%zu size %%zu\\n", offsetof(%s, %s), sizeof(((%s *)0)->%s));'
                         % (s, f, s, f, s, f))
    lines.append('#ifdef __cplusplus')
    for n in h.funcs():
        lines.append('    printf("func %s %%s\\n", TYPE_OF(&%s));' % (n, n))
    lines.append('#endif')
    lines.append('    return 0;\n}\n')
    open(out, 'w').write('\n'.join(lines))


def write_redecl(ref, out):
    h = Header(ref)
    lines = ['/* generated by tests/abi/abi_probe.py: the reference declarations',
             ' * repeated after the header under test; C rejects incompatible ones. */',
             '#include DMPI_ABI_HEADER', '']
    for n in h.types():
        if h.typedefs[n]:
            lines.append(h.typedefs[n])
    lines.append('')
    for n in h.funcs():
        lines.append(h.functions[n][1])
    open(out, 'w').write('\n'.join(lines) + '\n')


def compare_names(ref, ours):
    r, o = Header(ref), Header(ours)
    bad = 0
    for what, rs, os_ in (('constant', r.constants(), o.constants()),
                          ('type', r.types(), o.types()),
                          ('function', r.funcs(), o.funcs())):
        missing = sorted(set(rs) - set(os_))
        extra = sorted(set(os_) - set(rs))
        for n in missing:
            print('missing %s: %s' % (what, n))
        for n in extra:
            print('extra %s (not in the reference): %s' % (what, n))
        bad += len(missing) + len(extra)
    return 1 if bad else 0


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    cmd = argv[1]
    if cmd == 'probe':
        write_probe(argv[2], argv[3])
    elif cmd == 'redecl':
        write_redecl(argv[2], argv[3])
    elif cmd == 'names':
        return compare_names(argv[2], argv[3])
    elif cmd == 'count':
        h = Header(argv[2])
        print(len(h.constants()), len(h.funcs()))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
