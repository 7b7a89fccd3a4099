#!/usr/bin/env python3
"""Generates dmpi's three Fortran bindings from one description of the API.

  tools/gen_fortran.py OUTDIR      write into OUTDIR:
      fort_wrappers.c   the C side of every Fortran procedure
      mpif.h            the include file (fixed and free form)
      mpi.f90           the `mpi` module
      mpi_f08.f90       the `mpi_f08` module
  tools/gen_fortran.py --list      the procedures and how each is bound

The description is the MPI Forum's own machine-readable one of every
procedure, its parameters and its C, Fortran 90 and Fortran 2008 forms, as
PyPI's `pympistandard` carries it (docs/fortran.md says why). The integer
and handle constants come from our include/mpi.h, the C header of the
standard ABI, so Fortran and C always agree on their values.

How a procedure is bound: every Fortran argument arrives by reference, so
one C function serves `mpif.h`, `use mpi` and `use mpi_f08` alike (an f08
handle is a one-INTEGER derived type, an f08 status has the C layout, and
an absent OPTIONAL ierror arrives as NULL). That function is pmpi_<name>_;
mpi_<name>_, mpi_<name>_f08_ and pmpi_<name>_f08_ are aliases of it (the
f08 names are the specific procedures behind each generic). It converts
handles with the ABI's MPI_*_fromint/toint, strings (hidden lengths, blank
padding), the special addresses (MPI_BOTTOM, MPI_IN_PLACE, the "ignore"
arrays) and 1-based indices, and calls the C function. Procedures whose
arguments are procedures or need Fortran-specific meaning (callbacks,
attributes, MPI_Init) are written by hand in src/fortran/ and listed in
MANUAL below.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = os.path.join(ROOT, 'include', 'mpi.h')

try:
    import pympistandard as std
except ImportError:
    sys.exit('gen_fortran.py: the Python package pympistandard is needed '
             '(pip install pympistandard)')

# Written by hand in src/fortran/ (the generator still makes their module
# interfaces): callbacks, attribute values, strings with in/out lengths,
# and the Fortran-only procedures.
MANUAL = {
    'mpi_init', 'mpi_init_thread', 'mpi_finalize',
    'mpi_op_create', 'mpi_op_free',
    'mpi_comm_create_keyval', 'mpi_type_create_keyval', 'mpi_win_create_keyval',
    'mpi_keyval_create',
    'mpi_comm_create_errhandler', 'mpi_win_create_errhandler',
    'mpi_file_create_errhandler', 'mpi_session_create_errhandler',
    'mpi_errhandler_free',
    'mpi_grequest_start', 'mpi_register_datarep',
    'mpi_comm_get_attr', 'mpi_type_get_attr', 'mpi_win_get_attr', 'mpi_attr_get',
    'mpi_info_get', 'mpi_info_get_string', 'mpi_session_get_nth_pset',
    'mpi_status_f2f08', 'mpi_status_f082f',
    'mpi_f_sync_reg', 'mpi_pcontrol',
    'mpi_comm_spawn', 'mpi_comm_spawn_multiple',
}
# Not a C call: MPI_Sizeof is a module procedure (see SIZEOF).
SKIP = {'mpi_sizeof'}

HANDLE_TYPES = {
    'MPI_Comm': 'Comm', 'MPI_Datatype': 'Type', 'MPI_Errhandler': 'Errhandler',
    'MPI_File': 'File', 'MPI_Group': 'Group', 'MPI_Info': 'Info',
    'MPI_Message': 'Message', 'MPI_Op': 'Op', 'MPI_Request': 'Request',
    'MPI_Session': 'Session', 'MPI_Win': 'Win',
}
F08_HANDLE_NAMES = sorted(HANDLE_TYPES)
SCALARS = {'int', 'MPI_Aint', 'MPI_Count', 'MPI_Offset'}

# Functions whose INDEX outputs are positions in an array: 1-based in Fortran.
INDEX_OUT_FUNCS = {'mpi_waitany', 'mpi_testany', 'mpi_waitsome', 'mpi_testsome',
                   'mpi_request_get_status_any', 'mpi_request_get_status_some'}

# Sentinels: Fortran name -> (common block, Fortran declaration, f08 type)
SENTINELS = [
    ('MPI_BOTTOM', 'mpi_fortran_bottom', 'INTEGER MPI_BOTTOM'),
    ('MPI_IN_PLACE', 'mpi_fortran_in_place', 'INTEGER MPI_IN_PLACE'),
    ('MPI_BUFFER_AUTOMATIC', 'mpi_fortran_buffer_automatic', 'INTEGER MPI_BUFFER_AUTOMATIC'),
    ('MPI_STATUS_IGNORE', 'mpi_fortran_status_ignore',
     'INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)'),
    ('MPI_STATUSES_IGNORE', 'mpi_fortran_statuses_ignore',
     'INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)'),
    ('MPI_ERRCODES_IGNORE', 'mpi_fortran_errcodes_ignore', 'INTEGER MPI_ERRCODES_IGNORE(1)'),
    ('MPI_UNWEIGHTED', 'mpi_fortran_unweighted', 'INTEGER MPI_UNWEIGHTED(1)'),
    ('MPI_WEIGHTS_EMPTY', 'mpi_fortran_weights_empty', 'INTEGER MPI_WEIGHTS_EMPTY(1)'),
    ('MPI_ARGV_NULL', 'mpi_fortran_argv_null', 'CHARACTER*1 MPI_ARGV_NULL(1)'),
    ('MPI_ARGVS_NULL', 'mpi_fortran_argvs_null', 'CHARACTER*1 MPI_ARGVS_NULL(1,1)'),
]

PREDEFINED_FNS = [  # (name, callback interface for f08)
    ('MPI_COMM_NULL_COPY_FN', 'MPI_Comm_copy_attr_function'),
    ('MPI_COMM_DUP_FN', 'MPI_Comm_copy_attr_function'),
    ('MPI_COMM_NULL_DELETE_FN', 'MPI_Comm_delete_attr_function'),
    ('MPI_TYPE_NULL_COPY_FN', 'MPI_Type_copy_attr_function'),
    ('MPI_TYPE_DUP_FN', 'MPI_Type_copy_attr_function'),
    ('MPI_TYPE_NULL_DELETE_FN', 'MPI_Type_delete_attr_function'),
    ('MPI_WIN_NULL_COPY_FN', 'MPI_Win_copy_attr_function'),
    ('MPI_WIN_DUP_FN', 'MPI_Win_copy_attr_function'),
    ('MPI_WIN_NULL_DELETE_FN', 'MPI_Win_delete_attr_function'),
    ('MPI_NULL_COPY_FN', 'MPI_Copy_function'),
    ('MPI_DUP_FN', 'MPI_Copy_function'),
    ('MPI_NULL_DELETE_FN', 'MPI_Delete_function'),
]


# ------------------------------------------------------------ constants

def header_constants():
    """(integer constants, handle constants) from include/mpi.h, each a
    list of (name, value) in header order."""
    text = open(HEADER, encoding='utf-8').read()
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    ints, handles = [], []
    for m in re.finditer(r'#define\s+(MPI_\w+)\s+\(\((MPI_\w+)\)\s*(0x[0-9a-fA-F]+|\d+)\)', text):
        if m.group(2) in HANDLE_TYPES:
            handles.append((m.group(1), m.group(2), int(m.group(3), 0)))
    for m in re.finditer(r'#define\s+(MPI_\w+)\s+(-?\d+)\s*$', text, re.M):
        ints.append((m.group(1), int(m.group(2))))
    for body in re.findall(r'\benum\s*(?:\w+\s*)?\{(.*?)\}', text, re.S):
        for m in re.finditer(r'(MPI_\w+)\s*=\s*([^,]+)', body):
            expr = m.group(2).strip()
            expr = re.sub(r'(\d+)\s*<<\s*(\d+)', lambda x: str(int(x.group(1)) << int(x.group(2))), expr)
            try:
                ints.append((m.group(1), int(expr, 0)))
            except ValueError:
                pass
    skip = re.compile(r'^MPI_(F_|T_|ABI_)|^MPI_T_')
    ints = [(n, v) for n, v in ints if not skip.match(n) or n.startswith('MPI_T_ERR')]
    return ints, handles


def fixed(line):
    """A declaration line for mpif.h: starts in column 7, at most 72."""
    assert len(line) <= 66, line
    return '      ' + line


def common_constants(style):
    """Integer constants, kinds, handle constants (INTEGER) as Fortran
    declarations; style 'fixed' (mpif.h) or 'free' (the modules)."""
    ints, handles = header_constants()
    out = []

    def emit(decl, name, value):
        if style == 'fixed':
            out.append(fixed(f'{decl} {name}'))
            out.append(fixed(f'PARAMETER ({name}={value})'))
        else:
            out.append(f'{decl}, PARAMETER :: {name} = {value}')

    for n, v in [('MPI_ADDRESS_KIND', 8), ('MPI_OFFSET_KIND', 8), ('MPI_COUNT_KIND', 8),
                 ('MPI_INTEGER_KIND', 4), ('MPI_STATUS_SIZE', 8),
                 ('MPI_SOURCE', 1), ('MPI_TAG', 2), ('MPI_ERROR', 3)]:
        emit('INTEGER', n, v)
    seen = {'MPI_SOURCE', 'MPI_TAG', 'MPI_ERROR'}
    for n, v in ints:
        if n in seen:
            continue
        seen.add(n)
        emit('INTEGER', n, v)
    emit('INTEGER(KIND=MPI_OFFSET_KIND)', 'MPI_DISPLACEMENT_CURRENT', -1)
    for n, v in [('MPI_SUBARRAYS_SUPPORTED', '.FALSE.'),
                 ('MPI_ASYNC_PROTECTS_NONBLOCKING', '.FALSE.')]:
        emit('LOGICAL', n, v)
    return out, handles, seen


# ------------------------------------------------------------ C wrappers

def parse_c_proto(text):
    m = re.match(r'\s*(.*?)\s*(MPI_\w+)\((.*)\)\s*$', text, re.S)
    ret, cname, args = m.group(1), m.group(2), m.group(3).strip()
    params = []
    if args and args != 'void':
        for a in [x.strip() for x in args.split(',')]:
            if a == '...':
                params.append(('...', '...'))
                continue
            am = re.match(r'(.*?)\s*\b(\w+)\s*((?:\[\w*\])*)$', a)
            ctype = am.group(1).replace(' *', '*').strip()
            if am.group(3):
                ctype += am.group(3)
            params.append((ctype, am.group(2)))
    return ret, cname, params


class Unbindable(Exception):
    pass


def c_wrapper(name, proc_json, cproto, fname, large, f08=False):
    """C source of the wrapper function `fname` (e.g. pmpi_send_) for one
    procedure; cproto is its C prototype text."""
    ret, cname, cparams = parse_c_proto(cproto)
    jp = {q['name']: q for q in proc_json['parameters']}
    fparams = [q['name'] for q in proc_json['parameters']
               if 'f90_parameter' not in q['suppress'] and 'f08_parameter' not in q['suppress']
               and q['name'] != 'ierror' and not (q['large_only'] and not large)]
    ctypes = {n: t for t, n in cparams}
    decl, top, pre, post, call, strlens, frees = [], [], [], [], [], [], []
    for n in fparams:
        if n not in ctypes:
            raise Unbindable(f'{name}: Fortran parameter {n} has no C counterpart')
    for ctype, n in cparams:
        q = jp.get(n)
        kind = q['kind'] if q else ''
        if n not in fparams:  # C-only parameter (argc/argv of MPI_Info_create_env)
            call.append('0' if ctype == 'int' else 'NULL')
            continue
        base = ctype.replace('const ', '').replace('[]', '').replace('*', '').strip()
        is_arr = '[]' in ctype
        is_ptr = '*' in ctype
        direction = q['param_direction']
        if base == 'void' and not is_arr:
            decl.append(f'void *{n}')
            if kind == 'ATTRIBUTE_VAL':        # the value, an address-sized integer
                call.append(f'(void *)*(MPI_Aint *){n}')
            elif kind == 'ATTRIBUTE_VAL_10':   # the value, a default INTEGER
                call.append(f'(void *)(MPI_Aint)*(MPI_Fint *){n}')
            elif kind == 'C_BUFFER2' and not f08:
                # the address of a detached buffer: an f08 TYPE(C_PTR), but
                # in the older bindings the buffer itself (not overwritten)
                top.append(f'void *c_{n} = NULL;')
                call.append(f'&c_{n}')
            elif kind in ('C_BUFFER', 'C_BUFFER2', 'LOGICAL_VOID'):
                call.append(n)
            else:                              # a choice buffer or address
                call.append(f'dmpi_f_buf({n})')
        elif base in SCALARS:
            ftype = 'MPI_Fint' if base == 'int' else base
            decl.append(f'{ftype} *{n}')
            if not is_ptr and not is_arr:
                call.append(f'*{n}')
            elif kind == 'WEIGHT' and direction == 'in':
                call.append(f'dmpi_f_weights({n})')
            elif kind == 'ERROR_CODE' and is_arr:
                call.append(f'dmpi_f_errcodes({n})')
            else:
                call.append(n)
            if name in INDEX_OUT_FUNCS and kind == 'INDEX' and direction == 'out':
                if is_arr:
                    post.append(f'if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)\n'
                                f'        for (int i = 0; i < *outcount; i++) {n}[i]++;')
                else:
                    post.append(f'if (rc == MPI_SUCCESS && *{n} >= 0) (*{n})++;')
        elif ctype == 'int[][3]':
            decl.append(f'MPI_Fint *{n}')
            call.append(f'(int (*)[3]){n}')
        elif base in HANDLE_TYPES:
            t = HANDLE_TYPES[base]
            decl.append(f'MPI_Fint *{n}')
            if is_arr:
                length = q['length']
                if length in ('*', None):
                    which = {'sendtypes': 0, 'recvtypes': 1}.get(n)
                    if which is None:
                        raise Unbindable(f'{name}: length of {n}')
                    length = (f'dmpi_f_nbr_ntypes(*comm, {which})' if 'neighbor' in name
                              else 'dmpi_f_ntypes(*comm)')
                else:
                    length = f'(int)*{length}'
                top.append(f'{base} c_{n}_stack[DMPI_F_STACK], *c_{n} = NULL;')
                top.append(f'int n_{n} = 0;')
                pre.append(f'n_{n} = {length};')
                pre.append(f'c_{n} = dmpi_f_alloc(n_{n}, sizeof *c_{n}, c_{n}_stack);')
                pre.append(f'if (!c_{n}) {{ rc = MPI_ERR_NO_MEM; goto done; }}')
                if direction in ('in', 'inout'):
                    pre.append(f'for (int i = 0; i < n_{n}; i++) c_{n}[i] = MPI_{t}_fromint({n}[i]);')
                if direction in ('out', 'inout'):
                    post.append(f'if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)\n'
                                f'        for (int i = 0; i < n_{n}; i++) {n}[i] = MPI_{t}_toint(c_{n}[i]);')
                frees.append(f'dmpi_f_free(c_{n}, c_{n}_stack);')
                call.append(f'c_{n}')
            elif is_ptr:
                init = f'MPI_{t}_fromint(*{n})' if direction in ('in', 'inout') else f'MPI_{t}_fromint(0)'
                pre.append(f'{base} c_{n} = {init};')
                if direction != 'in':
                    post.append(f'if (rc == MPI_SUCCESS) *{n} = MPI_{t}_toint(c_{n});')
                call.append(f'&c_{n}')
            else:
                call.append(f'MPI_{t}_fromint(*{n})')
        elif base == 'MPI_Status':
            decl.append(f'MPI_Fint *{n}')
            call.append(f'dmpi_f_status({n})')
        elif base == 'char' and ctype.count('*') <= 1:
            decl.append(f'char *{n}')
            strlens.append(f'size_t {n}_len')
            if direction == 'in':
                strip = 'true' if name.startswith('mpi_info_') else 'false'
                top.append(f'char *c_{n} = NULL;')
                pre.append(f'c_{n} = dmpi_f_str_in({n}, {n}_len, {strip});')
                pre.append(f'if (!c_{n}) {{ rc = MPI_ERR_NO_MEM; goto done; }}')
                frees.append(f'free(c_{n});')
                call.append(f'c_{n}')
            else:
                pre.append(f'char c_{n}[DMPI_F_STRING_MAX + 1] = "";')
                post.append(f'if (rc == MPI_SUCCESS) dmpi_f_str_out({n}, {n}_len, c_{n});')
                call.append(f'c_{n}')
        else:
            raise Unbindable(f'{name}: C type {ctype} of {n}')
    args = ', '.join(decl + (['MPI_Fint *ierror'] if ret == 'int' else []) + strlens) or 'void'
    if ret in ('double', 'MPI_Aint'):
        assert not pre and not post
        return f'{ret} {fname}({args})\n{{\n    return {cname}({", ".join(call)});\n}}\n'
    body = ['    int rc = MPI_SUCCESS;'] + ['    ' + t for t in top] + ['    ' + p for p in pre]
    body.append(f'    rc = {cname}({", ".join(call)});')
    body += ['    ' + p for p in post]
    uses_done = any('goto done' in p for p in pre)
    if uses_done:
        body.append('done:')
    body += ['    ' + f for f in frees]
    body.append('    if (ierror) *ierror = rc;')
    return f'void {fname}({args})\n{{\n' + '\n'.join(body) + '\n}\n'


# ------------------------------------------------------- Fortran interfaces

def wrap_free(line, indent='  '):
    """Splits a free-form line longer than 100 characters at commas."""
    out = []
    while len(line) > 100:
        cut = line.rfind(', ', 0, 95)
        if cut < 0:
            break
        out.append(line[:cut + 1] + ' &')
        line = indent + '    ' + line[cut + 2:]
    out.append(line)
    return '\n'.join(out)


def interface_body(text, specific, f08):
    """One procedure's interface from the standard's rendering `text`
    (first line the call, then declarations), named `specific`."""
    lines = [l.strip() for l in str(text).strip().split('\n')]
    head, decls = lines[0], lines[1:]
    m = re.match(r'(.*?)\s*(MPI_\w+)\((.*)\)$', head)
    rtype, args = m.group(1), m.group(3)
    uses = [d for d in decls if d.upper().startswith('USE')]
    rest = []
    for d in decls:
        if d.upper().startswith('USE'):
            continue
        if d.startswith('<type>'):
            names = [x.strip().replace('(*)', '') for x in d[6:].split(',')]
            for nm in names:
                rest.append(f'!GCC$ ATTRIBUTES NO_ARG_CHECK :: {nm}')
                rest.append(f'!DIR$ IGNORE_TKR {nm}')
                rest.append(f'TYPE(*), DIMENSION(*) :: {nm}')
            continue
        if 'DIMENSION(..)' in d:
            attrs, names = d.split('::')
            attrs = attrs.replace('DIMENSION(..)', 'DIMENSION(*)')
            for nm in [x.strip() for x in names.split(',')]:
                rest.append(f'!GCC$ ATTRIBUTES NO_ARG_CHECK :: {nm}')
                rest.append(f'!DIR$ IGNORE_TKR {nm}')
                rest.append(f'{attrs.strip()} :: {nm}')
            continue
        rest.append(d)
    kind = 'FUNCTION' if rtype else 'SUBROUTINE'
    first = f'{kind} {specific}({args})'
    out = ['  ' + wrap_free(first)]
    out += ['    ' + u for u in uses]
    out.append('    IMPORT')
    out.append('    IMPLICIT NONE')
    if rtype:  # the result type may use the module's kinds: declared after IMPORT
        out.append(f'    {rtype} :: {specific}')
    out += ['    ' + wrap_free(r, '    ') for r in rest]
    out.append(f'  END {kind} {specific}')
    return out


def callback_interfaces(f08):
    out = []
    for key, cb in sorted(std.CALLBACKS.items()):
        if key.startswith('mpi_t_'):
            continue
        forms = [cb.express.f08] if f08 else []
        if f08 and getattr(cb.express, 'embiggen', None) is not None:
            forms.append(cb.express.embiggen.f08)
        for form in forms:
            if form is None:
                continue
            text = str(form).strip().split('\n')
            body = '\n'.join(text[1:])  # drop "ABSTRACT INTERFACE"
            m = re.match(r'\s*(MPI_\w+)\(', text[1])
            out.append('ABSTRACT INTERFACE')
            out += interface_body(body, m.group(1), True)
            out.append('END INTERFACE')
    return out


def f90_interface(key, pj, p):
    """The `use mpi` interface of a procedure. Those returning memory
    (MPI_ALLOC_MEM, MPI_WIN_ALLOCATE(_SHARED), MPI_WIN_SHARED_QUERY) are
    generic, with a second specific <NAME>_CPTR taking a TYPE(C_PTR)
    (MPI 4.1 section 19.1.3); both reach the same C function."""
    name = key.upper()
    cptr = [q['name'].upper() for q in pj['parameters'] if q['kind'] == 'C_BUFFER']
    if not cptr:
        return ['INTERFACE'] + interface_body(p.express.f90, name, False) + ['END INTERFACE']
    text = str(p.express.f90)
    lines = text.split('\n')
    out_lines = [lines[0]]
    for l in lines[1:]:
        m = re.match(r'(\s*INTEGER\(KIND=MPI_ADDRESS_KIND\)\s+)(.*)', l)
        if m:
            names = [x.strip() for x in m.group(2).split(',')]
            keep = [x for x in names if x not in cptr]
            if keep:
                out_lines.append(m.group(1) + ', '.join(keep))
            out_lines.append('\tTYPE(C_PTR) ' + ', '.join(x for x in names if x in cptr))
        else:
            out_lines.append(l)
    out_lines.insert(1, '\tUSE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR')
    return ([f'INTERFACE {name}'] + interface_body(text, name, False)
            + interface_body('\n'.join(out_lines), f'{name}_CPTR', False) + ['END INTERFACE'])


# ------------------------------------------------------------- generation

def procedures():
    """[(key, json, procedure)] of every procedure with a Fortran form."""
    import json
    data = json.load(open(os.path.join(os.path.dirname(std.__file__), 'data', 'apis.json')))
    out = []
    for key in sorted(std.PROCEDURES):
        p = std.PROCEDURES[key]
        a = data[key]['attributes']
        if p.express.f90 is None or a['callback'] or a['predefined_function']:
            continue
        out.append((key, data[key], p))
    return out


def generate(outdir):
    std.use_api_version(1)
    procs = procedures()
    c_out, f90_ifaces, f08_ifaces, unbound = [], [], [], []
    f08_generics = {}
    for key, pj, p in procs:
        base = key  # mpi_send
        cname = re.search(r'(MPI_\w+)\(', str(p.express.f08)).group(1) if p.express.f08 else None
        forms = [(False, p.express.iso_c, f'p{base}_', [f'{base}_', f'{base}_f08_', f'p{base}_f08_'])]
        if (p.express.embiggen is not None and p.express.embiggen.f08 is not None
                and str(p.express.embiggen.f08).replace('COUNT_KIND', 'ADDRESS_KIND')
                != str(p.express.f08)):
            # (where MPI_Count and MPI_Aint meet, both forms are one in Fortran)
            forms.append((True, p.express.embiggen.iso_c, f'p{base}_c_f08_', [f'{base}_c_f08_']))
        if key in SKIP:
            unbound.append(key)
            continue
        ok = True
        if key not in MANUAL and p.express.iso_c is not None:
            for large, cproto, fname, aliases in forms:
                try:
                    src = c_wrapper(key, pj, str(cproto), fname, large, f08=large)
                except Unbindable as e:
                    if not large:
                        unbound.append(f'{key} ({e})')
                        ok = False
                    break
                c_out.append(src)
                if not large and any(q['kind'] == 'C_BUFFER2' for q in pj['parameters']):
                    # the f08 form differs (see c_wrapper): a function of its own
                    f08name = f'p{base}_f08_'
                    c_out.append(c_wrapper(key, pj, str(cproto), f08name, large, True))
                    c_out.append(f'DMPI_F_ALIAS({f08name}, {base}_f08_)')
                    aliases = [a for a in aliases if not a.endswith('_f08_')]
                if not large and any(q['kind'] == 'C_BUFFER' for q in pj['parameters']):
                    aliases = aliases + [f'{base}_cptr_', f'p{base}_cptr_']  # use mpi's C_PTR form
                for a in aliases:
                    c_out.append(f'DMPI_F_ALIAS({fname}, {a})')
                c_out.append('')
        elif key not in MANUAL:
            unbound.append(key)
            ok = False
        if not ok:
            continue
        f90_ifaces += f90_interface(key, pj, p)
        if p.express.f08 is not None:
            specifics = [(f'{cname}_f08', p.express.f08)]
            if len(forms) > 1 and (key not in MANUAL):
                specifics.append((f'{cname}_c_f08', p.express.embiggen.f08))
            for spec, form in specifics:
                f08_ifaces += interface_body(form, spec, True)
                f08_generics.setdefault(cname, []).append(spec)

    write(outdir, 'fort_wrappers.c', c_file(c_out))
    consts_fixed, handles, _ = common_constants('fixed')
    consts_free, _, _ = common_constants('free')
    write(outdir, 'mpif.h', mpif_h(consts_fixed, handles))
    write(outdir, 'mpi.f90', mpi_module(consts_free, handles, f90_ifaces))
    write(outdir, 'mpi_f08.f90', f08_module(consts_free, handles, f08_ifaces, f08_generics))
    write(outdir, 'unbound.txt', '\n'.join(unbound) + '\n')


def write(outdir, name, text):
    path = os.path.join(outdir, name)
    old = open(path).read() if os.path.exists(path) else None
    if old != text:
        with open(path, 'w') as f:
            f.write(text)


GENERATED = 'Generated by tools/gen_fortran.py from the MPI Forum API description (pympistandard) and include/mpi.h: do not edit.'


def c_file(chunks):
    return (f'/* {GENERATED} */\n'
            '/* The C side of every generated Fortran procedure (see the generator). */\n'
            '#include "fortran/fort_support.h"\n\n' + '\n'.join(chunks))


def sentinel_decls(style):
    out = []
    for fname, block, decl in SENTINELS:
        if style == 'fixed':
            out.append(fixed(decl))
            out.append(fixed(f'COMMON /{block}/ {fname}'))
        else:
            out.append(decl)
            out.append(f'COMMON /{block}/ {fname}')
    return out


def mpif_h(consts, handles):
    out = [f'! {GENERATED}', '! mpif.h: the MPI constants for Fortran programs (fixed or free form).']
    out += consts
    for n, _t, v in handles:
        out.append(fixed(f'INTEGER {n}'))
        out.append(fixed(f'PARAMETER ({n}={v})'))
    out += sentinel_decls('fixed')
    # fails to compile unless default INTEGER and LOGICAL are 4 bytes
    out.append(fixed('INTEGER MPI_DMPI_IDIF, MPI_DMPI_LDIF, MPI_DMPI_KCHK'))
    out.append(fixed('PARAMETER (MPI_DMPI_IDIF=ABS(STORAGE_SIZE(0)-32))'))
    out.append(fixed('PARAMETER (MPI_DMPI_LDIF=ABS(STORAGE_SIZE(.TRUE.)-32))'))
    out.append(fixed('PARAMETER (MPI_DMPI_KCHK=1/(1-MIN(1,MPI_DMPI_IDIF+MPI_DMPI_LDIF)))'))
    out.append(fixed('DOUBLE PRECISION MPI_WTIME, MPI_WTICK'))
    out.append(fixed('EXTERNAL MPI_WTIME, MPI_WTICK'))
    out.append(fixed('INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD'))
    out.append(fixed('INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_DIFF'))
    out.append(fixed('EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF'))
    for n, _ in PREDEFINED_FNS:
        out.append(fixed(f'EXTERNAL {n}'))
    out.append(fixed('EXTERNAL MPI_CONVERSION_FN_NULL'))
    return '\n'.join(out) + '\n'


# TYPE(MPI_Status): the C layout (both modules have it, for MPI_Status_f2f08),
# after a check that fails to compile unless default INTEGER and LOGICAL
# are 4 bytes (the C wrappers take them as int).
STATUS_TYPE = ['  INTEGER, PARAMETER, PRIVATE :: dmpi_default_kinds_are_4_bytes = &',
               '    1 / MERGE(1, 0, STORAGE_SIZE(0) == 32 .AND. STORAGE_SIZE(.TRUE.) == 32)',
               '  TYPE, BIND(C) :: MPI_Status', '    INTEGER :: MPI_SOURCE, MPI_TAG, MPI_ERROR',
               '    INTEGER :: MPI_internal(5)', '  END TYPE MPI_Status']

SIZEOF = '''
  SUBROUTINE {name}(x, size, ierror)
    CLASS(*), INTENT(IN) :: x(..)
    INTEGER, INTENT(OUT) :: size
    INTEGER{opt}, INTENT(OUT) :: ierror
    size = INT(STORAGE_SIZE(x) / 8)
    {set_ierr}
  END SUBROUTINE {name}'''


def mpi_module(consts, handles, ifaces):
    out = [f'! {GENERATED}', '! The `mpi` module: constants and explicit interfaces (MPI 4.1 section 19.1.3).',
           'MODULE mpi', '  IMPLICIT NONE', '  PRIVATE :: dmpi_sizeof']
    out += STATUS_TYPE
    out += ['  ' + wrap_free(c) for c in consts]
    out += [f'  INTEGER, PARAMETER :: {n} = {v}' for n, _t, v in handles]
    out += ['  ' + s for s in sentinel_decls('free')]
    out += ['  EXTERNAL ' + n for n, _ in PREDEFINED_FNS] + ['  EXTERNAL MPI_CONVERSION_FN_NULL']
    out += ifaces
    out += ['  INTERFACE MPI_SIZEOF', '    MODULE PROCEDURE dmpi_sizeof', '  END INTERFACE']
    out.append('CONTAINS')
    out.append(SIZEOF.format(name='dmpi_sizeof', opt='', set_ierr='ierror = MPI_SUCCESS'))
    out.append('END MODULE mpi')
    return '\n'.join(out) + '\n'


def f08_module(consts, handles, ifaces, generics):
    out = [f'! {GENERATED}', '! The `mpi_f08` module: typed handles, constants and interfaces (MPI 4.1 section 19.1.4).',
           'MODULE mpi_f08', '  USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR, C_INT', '  IMPLICIT NONE',
           '  PRIVATE :: dmpi_sizeof_f08']
    for h in F08_HANDLE_NAMES:
        out += [f'  TYPE, BIND(C) :: {h}', '    INTEGER :: MPI_VAL', f'  END TYPE {h}']
    out += STATUS_TYPE
    out += ['  ' + wrap_free(c) for c in consts]
    for n, t, v in handles:
        out.append(f'  TYPE({t}), PARAMETER :: {n} = {t}({v})')
    for fname, block, decl in SENTINELS:
        if fname == 'MPI_STATUS_IGNORE':
            decl = 'TYPE(MPI_Status) MPI_STATUS_IGNORE'
        elif fname == 'MPI_STATUSES_IGNORE':
            decl = 'TYPE(MPI_Status) MPI_STATUSES_IGNORE(1)'
        out += [f'  {decl}', f'  COMMON /{block}/ {fname}']
    # equality of handles
    out.append('  INTERFACE OPERATOR(==)')
    out += [f'    MODULE PROCEDURE dmpi_eq_{h[4:].lower()}' for h in F08_HANDLE_NAMES]
    out.append('  END INTERFACE')
    out.append('  INTERFACE OPERATOR(/=)')
    out += [f'    MODULE PROCEDURE dmpi_ne_{h[4:].lower()}' for h in F08_HANDLE_NAMES]
    out.append('  END INTERFACE')
    out += ['  PRIVATE :: ' + ', '.join(f'dmpi_eq_{h[4:].lower()}, dmpi_ne_{h[4:].lower()}'
                                        for h in F08_HANDLE_NAMES[i:i + 3])
            for i in range(0, len(F08_HANDLE_NAMES), 3)]
    out += ['  ' + l for l in callback_interfaces(True)]
    for n, iface in PREDEFINED_FNS:
        # the MPI-1 callbacks have no mpi_f08 interface
        out.append(f'  PROCEDURE({iface}) :: {n}' if 'attr' in iface else f'  EXTERNAL :: {n}')
    out.append('  PROCEDURE(MPI_Datarep_conversion_function) :: MPI_CONVERSION_FN_NULL')
    out.append('  INTERFACE')
    out += ifaces
    out.append('  END INTERFACE')
    for g in sorted(generics):
        out.append(f'  INTERFACE {g}')
        out.append('    PROCEDURE ' + ', '.join(generics[g]))
        out.append('  END INTERFACE')
    out += ['  INTERFACE MPI_Sizeof', '    MODULE PROCEDURE dmpi_sizeof_f08', '  END INTERFACE']
    out.append('CONTAINS')
    for h in F08_HANDLE_NAMES:
        s = h[4:].lower()
        for op, name in (('==', 'eq'), ('/=', 'ne')):
            out += [f'  ELEMENTAL LOGICAL FUNCTION dmpi_{name}_{s}(a, b)',
                    f'    TYPE({h}), INTENT(IN) :: a, b',
                    f'    dmpi_{name}_{s} = a%MPI_VAL {op} b%MPI_VAL',
                    f'  END FUNCTION dmpi_{name}_{s}']
    out.append(SIZEOF.format(name='dmpi_sizeof_f08', opt=', OPTIONAL',
                             set_ierr='IF (PRESENT(ierror)) ierror = MPI_SUCCESS'))
    out.append('END MODULE mpi_f08')
    return '\n'.join(out) + '\n'


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    os.makedirs(argv[1], exist_ok=True)
    generate(argv[1])


if __name__ == '__main__':
    main(sys.argv)
