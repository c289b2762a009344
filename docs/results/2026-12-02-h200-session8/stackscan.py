"""A crude stack walk without gdb: for each thread of PID, the program counter from
/proc/PID/task/TID/syscall and every 8-byte word of the top STACK_BYTES of its stack that
points into an executable mapping (candidate return addresses), as library + offset."""
import sys, struct
pid = int(sys.argv[1])
STACK_BYTES = int(sys.argv[2]) if len(sys.argv) > 2 else 32768
maps, regions = [], []
for line in open(f"/proc/{pid}/maps"):
    parts = line.split()
    lo, hi = (int(x, 16) for x in parts[0].split("-"))
    regions.append((lo, hi))
    if "x" in parts[1] and len(parts) >= 6:
        maps.append((lo, hi, int(parts[2], 16), parts[5]))
def region_end(a):
    return next((hi for lo, hi in regions if lo <= a < hi), a)
def where(a):
    for lo, hi, off, name in maps:
        if lo <= a < hi:
            return f"{name.rsplit('/', 1)[-1]}+{a - lo + off:#x}"
    return None
import os
mem = open(f"/proc/{pid}/mem", "rb")
for tid in sorted(os.listdir(f"/proc/{pid}/task"), key=int):
    comm = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
    sc = open(f"/proc/{pid}/task/{tid}/syscall").read().split()
    if len(sc) < 3 or sc[0] in ("running",):
        print(f"== {tid} {comm}: {' '.join(sc)}"); continue
    sp, pc = int(sc[-2], 16), int(sc[-1], 16)
    print(f"== {tid} {comm}: syscall {sc[0]} pc {where(pc)}")
    try:
        mem.seek(sp); data = mem.read(min(STACK_BYTES, region_end(sp) - sp))
    except OSError as e:
        print("  (stack unreadable:", e, ")"); continue
    seen = 0
    for i in range(0, len(data) - 7, 8):
        w = struct.unpack_from("<Q", data, i)[0]
        s = where(w)
        if s:
            print(f"  sp+{i:#06x} {s}"); seen += 1
            if seen >= 60: break
