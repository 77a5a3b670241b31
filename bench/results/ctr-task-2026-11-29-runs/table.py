import glob, re, statistics as st
rows = {}
for f in sorted(glob.glob('./run*-*.txt')):
    n, v = re.search(r'run(\d+)-(\w+)\.txt', f).groups()
    t = open(f).read()
    d = {}
    for name in ('bare-mb', 'task-mb-offl', 'task-mb', 'task-evp', 'bare-evp'):
        m = re.search(r'^\| %s \| (\d+) / (\d+) / (\d+) \| ([\d.]+) \|' % re.escape(name), t, re.M)
        if m: d[name] = tuple(float(x) for x in m.groups())
    if 'bare-mb' not in d or 'load after' not in t: continue
    lb = re.search(r'load before: (\S+)', t).group(1); la = re.search(r'load after: (\S+)', t).group(1)
    date = re.search(r'date: (\S+)', t).group(1)
    rows.setdefault(n, {})[v] = (date, lb, la, d)
out = []
out.append('| run | UTC | 1-min load before/after | bare-mb cycles min/med/max | after: task-mb-offl ratio (median) | after: task-mb | before: task-mb-offl | before: task-mb |')
out.append('|---|---|---|---|---|---|---|---|')
ra, rb, sa, sb = [], [], [], []
for n, r in sorted(rows.items()):
    if 'after' not in r or 'before' not in r: continue
    da, db = r['after'][3], r['before'][3]
    ra.append(da['task-mb-offl'][3]); sa.append(da['task-mb'][3]); rb.append(db['task-mb-offl'][3]); sb.append(db['task-mb'][3])
    out.append('| %s | %s | %s/%s, %s/%s | %d/%d/%d (after run), %d/%d/%d (before run) | %.3f | %.3f | %.3f | %.3f |' % (
        n, r['after'][0][11:16], r['after'][1], r['after'][2], r['before'][1], r['before'][2],
        *da['bare-mb'][:3], *db['bare-mb'][:3], da['task-mb-offl'][3], da['task-mb'][3], db['task-mb-offl'][3], db['task-mb'][3]))
def s(x): return 'median %.3f, min %.3f, max %.3f, n %d' % (st.median(x), min(x), max(x), len(x))
print('\n'.join(out))
print()
print('after task-mb-offl:', s(ra)); print('after task-mb:', s(sa))
print('before task-mb-offl:', s(rb)); print('before task-mb:', s(sb))
paired = [a/b for a, b in zip(ra, rb)]
print('after/before offl ratio per pair:', s(paired), 'after better in %d of %d' % (sum(1 for a,b in zip(ra,rb) if a>b), len(ra)))
paired = [a/b for a, b in zip(sa, sb)]
print('after/before sw ratio per pair:', s(paired), 'after better in %d of %d' % (sum(1 for a,b in zip(sa,sb) if a>b), len(sa)))
