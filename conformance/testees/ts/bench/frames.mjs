// The bench's frames in the JSON form of conformance/PROTOCOL.md, one a line, each as
// `name<TAB>json`: acked frames of about 900 pose changes shaped like the cube scene
// (bench/src/scenes.rs): a player's body and 30 × 30 cubes 1.5 m apart, centred on
// the origin, resting 0.5 m high. bench.sh turns each into bytes with `ackwire encode acked`.
//
// - `keyframe`: the join, every body's pose as steps of 1/512 m from the origin (the scene's
//   floor lies inside the quantized box), KEYFRAME and CHECK set.
// - `catch-up`: a delta after lost frames, 900 poses changed: most as small steps, every
//   tenth in full (absolute floats), every seventh measured `age` ticks ago, two entities
//   removed and two events.
// - `small`: many small changes, 3000 entities' health or vehicle (6 to 9 bytes a change), as
//   a crowd's frame with no pose moving: where a codec's cost per field and per record shows
//   rather than its cost per byte.

const STEP = 512;

function grid(i) {
  return [(i % 30) * 1.5 - 21.75, Math.floor(i / 30) * 1.5 - 21.75, 0.5];
}

function keyframe() {
  const changes = [{ eid: 1, mask: ["POSE"], pose_step: { dx: 0, dy: -12 * STEP, dz: STEP, yaw: 0 } }];
  for (let i = 0; i < 900; i++) {
    const [x, y, z] = grid(i);
    changes.push({
      eid: i + 2,
      mask: ["POSE"],
      pose_step: { dx: x * STEP, dy: y * STEP, dz: z * STEP, yaw: 0 },
    });
  }
  return {
    tick: 600,
    base_tick: 0,
    last_seq: 590,
    input_buffer: 2,
    flags: ["KEYFRAME", "CHECK"],
    check: 0x9e3779b9,
    removed: [],
    changes,
    events: [],
  };
}

function catchUp() {
  const changes = [];
  for (let i = 0; i < 900; i++) {
    const [x, y, z] = grid(i);
    const mask = ["POSE"];
    const change = { eid: i + 2, mask };
    if (i % 7 === 3) {
      mask.push("POSE_AGE");
      change.age = 1 + (i % 3);
    }
    if (i % 10 === 0) {
      mask.push("POSE_FULL");
      change.pose_full = { x: x + 0.25, y: y - 0.125, z: z + 0.5, yaw: (i * 45) % 360 };
    } else {
      change.pose_step = { dx: (i % 41) - 20, dy: 20 - (i % 37), dz: i % 3, yaw: (i * 45) % 360 };
    }
    changes.push(change);
  }
  return {
    tick: 1240,
    base_tick: 1232,
    last_seq: 1230,
    input_buffer: 3,
    flags: [],
    removed: [17, 402],
    changes,
    first_serial: 88,
    events: [
      { shot: { shooter: 1, weapon: 2, yaw: 90 } },
      { blast: { x: 3.5, y: -2.25, z: 0.5, radius: 2.5 } },
    ],
  };
}

function small() {
  const changes = [];
  for (let i = 0; i < 3000; i++) {
    const kind = i % 3;
    const change = { eid: 2 + i, mask: [] };
    if (kind !== 1) {
      change.mask.push("HEALTH");
      change.health = { hp: (i * 7) % 256, armor: i % 100 };
    }
    if (kind !== 0) {
      change.mask.push("VEHICLE");
      change.vehicle = { vehicle: (i * 13) % 65536, seat: i % 4 };
    }
    changes.push(change);
  }
  return {
    tick: 2000,
    base_tick: 1998,
    last_seq: 1990,
    input_buffer: 1,
    flags: [],
    removed: [],
    changes,
    events: [],
  };
}

for (const [name, value] of [
  ["keyframe", keyframe()],
  ["catch-up", catchUp()],
  ["small", small()],
]) {
  process.stdout.write(`${name}\t${JSON.stringify(value)}\n`);
}
