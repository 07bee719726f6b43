#!/usr/bin/env python3
# Drives two testees (conformance/PROTOCOL.md) in lockstep through random lossy, reordering,
# duplicating streams of the datagram (`docs/spec/datagram.md`), baseline (`docs/spec/baseline.md`)
# and delta (`docs/spec/delta.md`) session pairs: a scripted world on the server half, the network
# between the halves simulated here with a seeded random.Random. After every request the two must
# answer alike: every `take` (bytes, order, channel) and every client `state_hash` identical
# (reports are informative and not compared). Exits non-zero on the first disagreement, printing
# both answers. A check of a new port against the Rust halves beyond the recorded stream vectors,
# until `ackwire fuzz-diff` drives streams (issue 18):
#
#   python3 scripts/lockstep-sessions.py "target/debug/ackwire testee" \
#       conformance/testees/cpp/build/testee 600
import json, random, subprocess, sys
class T:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.n = 0
    def q(self, **k):
        self.n += 1; k['id'] = self.n
        self.p.stdin.write(json.dumps(k) + '\n'); self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line: raise SystemExit('testee died: ' + json.dumps(k)[:300])
        return json.loads(line)
def both(ts, **k):
    a, b = (t.q(**k) for t in ts)
    a.pop('id'); b.pop('id')
    ra = a.get('ok', {}); rb = b.get('ok', {})
    ra.pop('report', None); rb.pop('report', None)
    if a.keys() != b.keys() or ra != rb:
        raise SystemExit('DISAGREE on %s\n rust %s\n cpp  %s' % (json.dumps(k)[:300], json.dumps(a)[:400], json.dumps(b)[:400]))
    return a
def world(pair, rng, tick, state):
    ops = []
    if pair == 'datagram':
        for _ in range(rng.randrange(4)):
            i = rng.randrange(1, 8)
            if i in state:
                r = rng.random()
                if r < 0.15: ops.append({'despawn': {'id': i}}); state.discard(i)
                elif r < 0.3: ops.append({'set': {'id': i, 'type': rng.randrange(3), 'hex': '%02x' % rng.randrange(256) * rng.randrange(4)}})
                elif r < 0.4: ops.append({'remove': {'id': i, 'type': rng.randrange(3)}})
                else: ops.append({'move': {'id': i, 'x': rng.uniform(-50, 50), 'y': rng.uniform(-50, 50), 'z': rng.uniform(-1, 1)}})
            else:
                ops.append({'spawn': {'id': i, 'x': rng.uniform(-50, 50), 'y': 0.5, 'z': 0, 'components': {'1': 'ab'}}}); state.add(i)
        if rng.random() < 0.05: ops.append({'full_frame': {}})
        if rng.random() < 0.3: ops.append({'input_ack': {'seq': tick * 2}})
    elif pair == 'baseline':
        for _ in range(rng.randrange(4)):
            s = rng.randrange(0, 200, 7)
            if s in state and rng.random() < 0.2:
                ops.append({'despawn': {'slot': s}}); del state[s]
            elif s not in state:
                state[s] = rng.randrange(256); ops.append({'spawn': {'slot': s, 'generation': state[s], 'owner': rng.choice([1, 2])}})
            else:
                c = rng.randrange(4)
                if c == 0: ops.append({'transform': {'slot': s, 'x': round(rng.uniform(-100, 100) * 64) / 64, 'y': 1.0, 'z': 0.5, 'yaw': 90.0}})
                elif c == 1: ops.append({'velocity': {'slot': s, 'vx': 1.0, 'vy': -2.0, 'vz': 0.5}})
                elif c == 2: ops.append({'health': {'slot': s, 'hp': rng.randrange(128)}})
                else: ops.append({'team': {'slot': s, 'team': rng.randrange(8)}})
    else:
        for _ in range(rng.randrange(4)):
            slot = rng.randrange(40); g = state.get(slot)
            if g is not None and rng.random() < 0.5:
                ops.append({'leave': (slot << 16) | g}); del state[slot]
            else:
                g2 = 0 if g is None else (g + 1) & 0xFFFF
                state[slot] = g2; ops.append({'enter': (slot << 16) | g2})
        if rng.random() < 0.02: ops.append({'request_full_baseline': True})
    return ops
def run(seed, rust, cpp):
    rng = random.Random(seed)
    pair = ['datagram', 'baseline', 'delta'][seed % 3]
    params = {'datagram': {'max_datagram': rng.choice([64, 200, 1200])}, 'baseline': {'budget': rng.choice([40, 120, 1200]), 'first_sequence': rng.choice([0, 65500])},
              'delta': {'history': rng.choice([4, 32]), 'stalled_after_ms': 200, 'keepalive_every_ms': 50} if rng.random() < 0.5 else {}}[pair]
    ts = (rust, cpp)
    srv = both(ts, op='open', session=pair + '_server', params=params)['ok']['handle']
    cli = both(ts, op='open', session=pair + '_client', params=params)['ok']['handle']
    down, up, state = [], [], (set() if pair == 'datagram' else {})
    loss = rng.choice([0.0, 0.1, 0.3, 0.6]); steps = 0
    for tick in range(1, 80):
        now = tick * 20
        both(ts, op='advance', handle=srv, tick=tick, now_ms=now, ops=world(pair, rng, tick, state))
        for f in both(ts, op='take', handle=srv)['ok']['frames']:
            if f['reliable']: down.append((now + 30, rng.random(), f, True))
            elif rng.random() >= loss:
                down.append((now + rng.randrange(10, 90), rng.random(), f, False))
                if rng.random() < 0.1: down.append((now + rng.randrange(10, 120), rng.random(), f, False))
        # reliable frames keep their order: deliver them at their time, in send order
        down.sort(key=lambda d: (d[0], d[1]) if not d[3] else (d[0], 0))
        while down and down[0][0] <= now:
            _, _, f, _ = down.pop(0)
            both(ts, op='deliver', handle=cli, now_ms=now, frame=f['frame'], hex=f['hex']); steps += 1
            both(ts, op='state_hash', handle=cli)
            for a in both(ts, op='take', handle=cli)['ok']['frames']:
                if rng.random() >= loss: up.append((now + rng.randrange(10, 90), a))
        up.sort(key=lambda u: u[0])
        while up and up[0][0] <= now:
            _, a = up.pop(0)
            both(ts, op='deliver', handle=srv, now_ms=now, frame=a['frame'], hex=a['hex'])
    both(ts, op='close', handle=srv); both(ts, op='close', handle=cli)
    return pair, steps
rust = T(sys.argv[1]); cpp = T(sys.argv[2])
count = {}
for seed in range(int(sys.argv[3])):
    pair, steps = run(seed, rust, cpp)
    count[pair] = count.get(pair, 0) + steps
print('agreed on', int(sys.argv[3]), 'streams; deliveries to the client:', count, '; requests each:', rust.n)
