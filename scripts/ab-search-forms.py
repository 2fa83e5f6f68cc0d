#!/usr/bin/env python3
# A/B of x-hangar/search query forms on one store (docs/performance.md, "Search"):
# rank every match or the newest 2,000, with and without FTS5 prefix indexes,
# interleaved. Usage: target/release/bench-search ... --dir D, copy D/hangar.db,
# then python3 scripts/ab-search-forms.py COPY.db (adds a table fts_noprefix to it).
import sqlite3,time,random,math,shutil,sys
db=sys.argv[1]
c=sqlite3.connect(db)
def word(i):
    C=b"bcdfghjklmnprstvz"; V=b"aeiou"; n=i+7919; w=''; l=5+i%5
    for k in range(l):
        s=C if k%2==0 else V
        w+=chr(s[n%len(s)]); n//=len(s); n+=k*31+i
    return w+str(i%97)
W=[word(i) for i in range(20000)]
rng=random.Random(7)
def pick(): return min(max(int(20000**rng.random())-1,0),19999)
def expr(ws):
    q=['"%s"'%w for w in ws]; q[-1]+='*' if len(ws[-1])>1 else ''; return ' '.join(q)
kinds={'one word':[expr([W[pick()]]) for _ in range(100)],
       'three words':[expr([W[pick()] for _ in range(3)]) for _ in range(100)],
       'prefix':[expr([W[pick()][:4]]) for _ in range(100)]}
def sql(fts, window):
    rec = f"ORDER BY {fts}.rowid DESC LIMIT 2000" if window else "ORDER BY score, d.at DESC, d.id DESC LIMIT 21"
    inner = f"""SELECT {fts}.rowid AS id, bm25({fts}) AS score, d.at AS at FROM {fts} JOIN search_docs d ON d.id = {fts}.rowid WHERE {fts} MATCH ?1 {rec}"""
    return f"""WITH recent AS ({inner}), top AS (SELECT id, score, at FROM recent ORDER BY score, at DESC, id DESC LIMIT 21)
      SELECT d.session, snippet({fts}, 0, '«', '»', '…', 24), top.score FROM top JOIN {fts} ON {fts}.rowid = top.id
      JOIN search_docs d ON d.id = top.id JOIN sessions s ON s.uri = d.session WHERE {fts} MATCH ?1 ORDER BY top.score, top.at DESC, top.id DESC"""
have=c.execute("select count(*) from sqlite_master where name='fts_noprefix'").fetchone()[0]
if not have:
    t=time.time()
    c.execute("CREATE VIRTUAL TABLE fts_noprefix USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')")
    c.execute("INSERT INTO fts_noprefix(rowid, body) SELECT rowid, body FROM search_fts"); c.commit()
    print('built fts_noprefix in %.1f s'%(time.time()-t))
def pct(v,p): v=sorted(v); return v[min(len(v)-1,int(p*len(v)))]
variants=[('before: no window, no prefix index','fts_noprefix',False),('window, no prefix index','fts_noprefix',True),('window + prefix index (main)','search_fts',True),('no window, prefix index','search_fts',False)]
for kind,qs in kinds.items():
    res={}
    for rnd in range(2):
        for name,fts,win in variants:
            q=sql(fts,win)
            for e in qs:
                t=time.perf_counter(); c.execute(q,(e,)).fetchall(); res.setdefault(name,[]).append((time.perf_counter()-t)*1000)
    for name,_,_ in variants:
        v=res[name]; print(f"{kind:12} {name:38} p50 {pct(v,.5):8.2f} ms  p99 {pct(v,.99):8.2f} ms")
