# A Python triple-quoted string that never ends: a warning at its start, and the annotation after
# it is not read (it is inside the string), so only the first buffer is checked. The checks stand
# before the string: after it, a line with three quotes would close it.
# EXIT: 1
# CHECK: unterminated_docstring.py:[[@LINE+6]]:5: warning: unterminated triple-quoted string: the rest of the file is not searched for annotations [LP000]
# CHECK-NEXT: {{^}}    """an unterminated docstring{{$}}
# CHECK-NEXT: {{^}}    ^{{$}}
# CHECK-NEXT: 1 finding (1 warning), in 1 file; 1 obligation proven
# layoutproof: smem sA : f16 = (_8,_64):(_64,_1) align 128
def kernel():
    """an unterminated docstring
# layoutproof: smem sB : f16 = (_8,_64):(_32,_1) align 128
