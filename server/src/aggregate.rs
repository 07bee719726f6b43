//! Aggregation (SRV-10, SRV-11): the third option between sending every entity and sending none,
//! for entities a client must *compute* with rather than merely draw.
//!
//! Relevance culling drops a distant contribution entirely; aggregation keeps it and drops only
//! its resolution, replacing a distant group with one stand-in at its weighted centroid. This
//! is the Barnes-Hut construction: a quadtree ([`AggregateTree`]) over [`WeightedPoint`]s,
//! walked from a viewpoint into [`Summary`]s.
//!
//! Choosing `theta` is not a monotone dial: below roughly `0.7` it trades accuracy for work
//! smoothly; past about `1.0` the criterion begins accepting cells the viewer sits close to.
//! How coarse an approximation may be is a property of the consumer, not of the approximation.

/// A point with an additive weight: mass, headcount, threat, loudness.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WeightedPoint {
    /// World x.
    pub x: f32,
    /// World y.
    pub y: f32,
    /// The additive quantity the consumer superposes. Expected non-negative.
    pub weight: f32,
}

impl WeightedPoint {
    /// A point at `(x, y)` carrying `weight`.
    #[must_use]
    pub const fn new(x: f32, y: f32, weight: f32) -> Self {
        Self { x, y, weight }
    }
}

/// One entry of a walk: a real point or a stand-in for a group.
///
/// SRV-11: a summary of count 1 approximates nothing, so the consumer may send the real entity
/// instead of a stand-in. [`AggregateTree::members`] names the input indices it stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// The weighted centroid of the members (the point itself when `count == 1`).
    pub x: f32,
    /// The weighted centroid of the members (the point itself when `count == 1`).
    pub y: f32,
    /// The members' total weight.
    pub weight: f32,
    /// How many input points this stands for.
    pub count: u32,
    /// The width of the tree cell summarized; `0.0` for a single point returned exactly.
    pub size: f32,
    /// Members are `order[start..end]` of the tree that made this summary.
    start: u32,
    end: u32,
}

/// A node of the quadtree. Its members are `order[start..end]`.
#[derive(Clone, Debug)]
struct Node {
    /// The cell's width.
    size: f32,
    /// Weighted centroid.
    x: f32,
    y: f32,
    /// Total weight.
    weight: f32,
    start: u32,
    end: u32,
    /// Child node indices; `0` is none (the root is never a child).
    children: [u32; 4],
    /// Whether this node was not subdivided (one point, or the depth limit).
    leaf: bool,
}

impl Node {
    fn count(&self) -> u32 {
        self.end - self.start
    }
}

/// A Barnes-Hut quadtree over weighted points.
///
/// SRV-10: `max_depth` is required and bounds the recursion, since no subdivision separates points
/// that coincide; a leaf at the limit holds several points and is summarized as one group. At most
/// `u32::MAX` points are indexed; any beyond are ignored.
#[derive(Clone, Debug, Default)]
pub struct AggregateTree {
    points: Vec<WeightedPoint>,
    /// Input indices, permuted so every node's members are contiguous.
    order: Vec<u32>,
    nodes: Vec<Node>,
}

impl AggregateTree {
    /// A tree whose root cell is fitted to the points' extent: convenient for a one-off.
    ///
    /// Prefer [`build_in`](Self::build_in) when rebuilding every tick over moving points: this one
    /// re-centres the whole subdivision whenever the extent changes. The extent is taken over
    /// finite coordinates; a point with a non-finite coordinate is still included, in whichever
    /// cell the comparisons put it.
    #[must_use]
    pub fn build(points: &[WeightedPoint], max_depth: u8) -> Self {
        let mut min = (f32::INFINITY, f32::INFINITY);
        let mut max = (f32::NEG_INFINITY, f32::NEG_INFINITY);
        for point in points {
            if point.x.is_finite() && point.y.is_finite() {
                min = (min.0.min(point.x), min.1.min(point.y));
                max = (max.0.max(point.x), max.1.max(point.y));
            }
        }
        let (center, size) = if min.0 <= max.0 {
            (
                (min.0 / 2.0 + max.0 / 2.0, min.1 / 2.0 + max.1 / 2.0),
                (max.0 - min.0).max(max.1 - min.1),
            )
        } else {
            ((0.0, 0.0), 0.0)
        };
        Self::build_in(points, center, size, max_depth)
    }

    /// A tree with a fixed square root cell of width `size` centred on `center`.
    ///
    /// SRV-10: points outside the cell are still included; the tree is then merely unbalanced.
    #[must_use]
    pub fn build_in(
        points: &[WeightedPoint],
        center: (f32, f32),
        size: f32,
        max_depth: u8,
    ) -> Self {
        let points: Vec<WeightedPoint> = points.iter().take(u32::MAX as usize).copied().collect();
        let mut tree = Self {
            order: (0..points.len() as u32).collect(),
            points,
            nodes: Vec::new(),
        };
        if !tree.points.is_empty() {
            let end = tree.order.len() as u32;
            tree.build_node(0, end, center, size, 0, max_depth);
        }
        tree
    }

    /// Builds the node over `order[start..end]` and returns its index.
    fn build_node(
        &mut self,
        start: u32,
        end: u32,
        center: (f32, f32),
        size: f32,
        depth: u8,
        max_depth: u8,
    ) -> u32 {
        let index = self.nodes.len() as u32;
        let (x, y, weight) = self.centroid(start, end);
        let leaf = end - start <= 1 || depth >= max_depth;
        self.nodes.push(Node {
            size,
            x,
            y,
            weight,
            start,
            end,
            children: [0; 4],
            leaf,
        });
        if leaf {
            return index;
        }
        // Group the members by quadrant: bit 0 is east of centre, bit 1 north of it.
        let points = &self.points;
        let quadrant = |i: &u32| {
            let p = points.get(*i as usize).copied().unwrap_or_default();
            usize::from(p.x >= center.0) | (usize::from(p.y >= center.1) << 1)
        };
        if let Some(members) = self.order.get_mut(start as usize..end as usize) {
            members.sort_by_key(quadrant);
        }
        let mut bounds = [start; 5];
        for (q, bound) in bounds.iter_mut().enumerate().skip(1) {
            let members = self.order.get(start as usize..end as usize).unwrap_or(&[]);
            *bound = start + members.partition_point(|i| quadrant(i) < q) as u32;
        }
        let quarter = size / 4.0;
        let half = size / 2.0;
        let mut children = [0; 4];
        for (q, child) in children.iter_mut().enumerate() {
            let (from, to) = (bounds[q], bounds.get(q + 1).copied().unwrap_or(end));
            if from == to {
                continue;
            }
            let cx = if q & 1 == 1 {
                center.0 + quarter
            } else {
                center.0 - quarter
            };
            let cy = if q & 2 == 2 {
                center.1 + quarter
            } else {
                center.1 - quarter
            };
            *child = self.build_node(from, to, (cx, cy), half, depth + 1, max_depth);
        }
        if let Some(node) = self.nodes.get_mut(index as usize) {
            node.children = children;
        }
        index
    }

    /// The weighted centroid and total weight of `order[start..end]`.
    ///
    /// Falls back to the plain mean position when the total weight is zero or the weighted
    /// mean is not finite, so a group of weightless points still has a position.
    fn centroid(&self, start: u32, end: u32) -> (f32, f32, f32) {
        let members = self.order.get(start as usize..end as usize).unwrap_or(&[]);
        let (mut sw, mut swx, mut swy, mut sx, mut sy) = (0.0_f64, 0.0, 0.0, 0.0, 0.0);
        for p in members.iter().filter_map(|&i| self.points.get(i as usize)) {
            let (x, y, w) = (f64::from(p.x), f64::from(p.y), f64::from(p.weight));
            sw += w;
            swx += w * x;
            swy += w * y;
            sx += x;
            sy += y;
        }
        let n = members.len().max(1) as f64;
        let (wx, wy) = (swx / sw, swy / sw);
        let (x, y) = if sw != 0.0 && wx.is_finite() && wy.is_finite() {
            (wx, wy)
        } else {
            (sx / n, sy / n)
        };
        (x as f32, y as f32, sw as f32)
    }

    /// Walks from the viewpoint `(x, y)`, accepting a node as one [`Summary`] when its cell
    /// width over its distance (from the viewpoint to the node's centroid) falls below `theta`.
    ///
    /// SRV-11: `out` is cleared and reused, so a walk every frame allocates nothing after the
    /// first. A node the viewer stands on is never accepted (its distance is zero), so near
    /// entities always come back with `count == 1`. A `theta` at or below 0 accepts nothing and
    /// returns every point exactly (the way to switch aggregation off); a NaN `theta` is treated
    /// the same way. With a positive `theta`, a leaf that hit `max_depth` holding several points
    /// comes back as one group.
    pub fn summarize(&self, x: f32, y: f32, theta: f32, out: &mut Vec<Summary>) {
        out.clear();
        if self.nodes.is_empty() {
            return;
        }
        let exact = theta.is_nan() || theta <= 0.0;
        self.walk(0, (x, y), theta, exact, out);
    }

    fn walk(&self, index: u32, view: (f32, f32), theta: f32, exact: bool, out: &mut Vec<Summary>) {
        let Some(node) = self.nodes.get(index as usize) else {
            return;
        };
        if node.count() == 1 {
            self.push_points(node.start, node.end, out);
        } else if !exact && Self::accepts(node, view, theta) {
            out.push(Self::group(node));
        } else if node.leaf {
            if exact {
                self.push_points(node.start, node.end, out);
            } else {
                out.push(Self::group(node));
            }
        } else {
            for &child in node.children.iter().filter(|&&child| child != 0) {
                self.walk(child, view, theta, exact, out);
            }
        }
    }

    /// The opening-angle test: cell width over distance below `theta`.
    fn accepts(node: &Node, view: (f32, f32), theta: f32) -> bool {
        let distance = (node.x - view.0).hypot(node.y - view.1);
        node.size / distance < theta
    }

    fn group(node: &Node) -> Summary {
        Summary {
            x: node.x,
            y: node.y,
            weight: node.weight,
            count: node.count(),
            size: node.size,
            start: node.start,
            end: node.end,
        }
    }

    /// Pushes every point of `order[start..end]` as an exact summary.
    fn push_points(&self, start: u32, end: u32, out: &mut Vec<Summary>) {
        for slot in start..end {
            let point = self
                .order
                .get(slot as usize)
                .and_then(|&i| self.points.get(i as usize));
            if let Some(point) = point {
                out.push(Summary {
                    x: point.x,
                    y: point.y,
                    weight: point.weight,
                    count: 1,
                    size: 0.0,
                    start: slot,
                    end: slot + 1,
                });
            }
        }
    }

    /// The original input indices `summary` stands for.
    ///
    /// A summary from a different tree gives whatever lies in its range here, or an empty
    /// slice when the range does not fit.
    #[must_use]
    pub fn members(&self, summary: &Summary) -> &[u32] {
        self.order
            .get(summary.start as usize..summary.end as usize)
            .unwrap_or(&[])
    }

    /// How many points the tree holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether the tree holds no point.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// How many quadtree nodes were built: bounded by `max_depth` however the points lie.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(cx: f32, cy: f32, n: usize) -> Vec<WeightedPoint> {
        (0..n)
            .map(|i| {
                let a = i as f32;
                WeightedPoint::new(cx + (a * 0.37).sin(), cy + (a * 0.71).cos(), 1.0 + a)
            })
            .collect()
    }

    fn all_members(tree: &AggregateTree, out: &[Summary]) -> Vec<u32> {
        let mut members: Vec<u32> = out
            .iter()
            .flat_map(|s| tree.members(s).iter().copied())
            .collect();
        members.sort_unstable();
        members
    }

    #[test]
    fn theta_zero_or_below_returns_every_point_exactly() {
        // SRV-11.
        let mut points = cluster(0.0, 0.0, 20);
        points.extend(cluster(500.0, 500.0, 20));
        // Coincident points share a depth-limited leaf; they are still returned one by one.
        points.extend([WeightedPoint::new(9.0, 9.0, 2.0); 3]);
        let tree = AggregateTree::build(&points, 4);
        let mut out = Vec::new();
        for theta in [0.0, -1.0, f32::NAN] {
            tree.summarize(1000.0, 1000.0, theta, &mut out);
            assert_eq!(out.len(), points.len());
            for summary in &out {
                assert_eq!(summary.count, 1);
                assert_eq!(summary.size, 0.0);
                let [index] = tree.members(summary) else {
                    panic!("an exact summary has one member");
                };
                assert_eq!(
                    points[*index as usize],
                    WeightedPoint::new(summary.x, summary.y, summary.weight)
                );
            }
            assert_eq!(
                all_members(&tree, &out),
                (0..points.len() as u32).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn far_group_is_one_stand_in_at_its_weighted_centroid() {
        // SRV-11.
        let points = vec![
            WeightedPoint::new(1000.0, 0.0, 1.0),
            WeightedPoint::new(1002.0, 0.0, 3.0),
        ];
        let tree = AggregateTree::build(&points, 8);
        let mut out = Vec::new();
        tree.summarize(0.0, 0.0, 0.5, &mut out);
        assert_eq!(out.len(), 1);
        let summary = out[0];
        assert_eq!(summary.count, 2);
        assert_eq!(summary.weight, 4.0);
        assert_eq!((summary.x, summary.y), (1001.5, 0.0));
        assert_eq!(summary.size, 2.0);
        let mut members = tree.members(&summary).to_vec();
        members.sort_unstable();
        assert_eq!(members, [0, 1]);
    }

    #[test]
    fn near_entities_come_back_exact() {
        // SRV-11. A grid of points 10 apart around the viewer, plus a far cluster.
        let mut points: Vec<WeightedPoint> = (0..25)
            .map(|i| {
                WeightedPoint::new(
                    (i % 5) as f32 * 10.0 - 20.0,
                    (i / 5) as f32 * 10.0 - 20.0,
                    1.0,
                )
            })
            .collect();
        points.extend(cluster(1000.0, 1000.0, 10));
        let tree = AggregateTree::build(&points, 10);
        let mut out = Vec::new();
        let theta = 0.5;
        tree.summarize(0.0, 0.0, theta, &mut out);
        // Every group passed the opening-angle test; so any point closer to the viewer than
        // the cell it would share with a neighbour over theta comes back alone.
        for summary in out.iter().filter(|s| s.count > 1) {
            assert!(summary.size / summary.x.hypot(summary.y) < theta);
        }
        let near: Vec<&Summary> = out.iter().filter(|s| s.x.hypot(s.y) < 15.0).collect();
        assert_eq!(near.len(), 9, "the nine points around the viewer");
        assert!(near.iter().all(|s| s.count == 1));
        assert!(out.iter().any(|s| s.count == 10 && s.x > 900.0));
        assert_eq!(all_members(&tree, &out), (0..35).collect::<Vec<_>>());
    }

    #[test]
    fn total_weight_is_preserved_by_any_walk() {
        let mut points = cluster(0.0, 0.0, 30);
        points.extend(cluster(300.0, -200.0, 30));
        let tree = AggregateTree::build(&points, 12);
        let total: f32 = points.iter().map(|p| p.weight).sum();
        let mut out = Vec::new();
        for theta in [0.0, 0.3, 0.7, 1.5, 10.0] {
            tree.summarize(50.0, 50.0, theta, &mut out);
            let walked: f32 = out.iter().map(|s| s.weight).sum();
            assert!((walked - total).abs() < 1e-3, "theta {theta}");
            assert_eq!(out.iter().map(|s| s.count).sum::<u32>(), 60);
        }
    }

    #[test]
    fn max_depth_bounds_coincident_points() {
        // SRV-10.
        let points = vec![WeightedPoint::new(5.0, 5.0, 1.0); 1000];
        let tree = AggregateTree::build_in(&points, (0.0, 0.0), 100.0, 6);
        // One chain of nodes to the depth limit, not a thousand levels.
        assert_eq!(tree.node_count(), 7);
        let mut out = Vec::new();
        // Standing on the points: the leaf cannot pass the opening-angle test, and comes back
        // as one group because it hit the limit.
        tree.summarize(5.0, 5.0, 0.5, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].count, 1000);
        assert_eq!(out[0].weight, 1000.0);
        assert_eq!(tree.members(&out[0]).len(), 1000);
    }

    #[test]
    fn out_is_cleared_and_reused() {
        // SRV-11.
        let tree = AggregateTree::build(&cluster(0.0, 0.0, 5), 8);
        let mut out = Vec::new();
        tree.summarize(0.0, 0.0, 0.0, &mut out);
        assert_eq!(out.len(), 5);
        let (pointer, capacity) = (out.as_ptr(), out.capacity());
        tree.summarize(0.0, 0.0, 0.0, &mut out);
        assert_eq!(out.len(), 5, "cleared, not appended");
        assert_eq!(
            (out.as_ptr(), out.capacity()),
            (pointer, capacity),
            "no reallocation"
        );
    }

    #[test]
    fn build_fits_the_extent_and_build_in_keeps_the_given_cell() {
        let points = vec![
            WeightedPoint::new(10.0, 10.0, 1.0),
            WeightedPoint::new(14.0, 12.0, 1.0),
        ];
        let mut out = Vec::new();
        // Far enough away that the root is accepted: its size is the root cell's width.
        let fitted = AggregateTree::build(&points, 8);
        fitted.summarize(10_000.0, 0.0, 0.5, &mut out);
        assert_eq!((out.len(), out[0].size), (1, 4.0));
        let fixed = AggregateTree::build_in(&points, (0.0, 0.0), 64.0, 8);
        fixed.summarize(10_000.0, 0.0, 0.5, &mut out);
        assert_eq!((out.len(), out[0].size), (1, 64.0));
        // Moving a point does not move a fixed tree's cells.
        let moved = [points[0], WeightedPoint::new(20.0, 12.0, 1.0)];
        let refitted = AggregateTree::build(&moved, 8);
        refitted.summarize(10_000.0, 0.0, 0.5, &mut out);
        assert_eq!(out[0].size, 10.0);
        let fixed = AggregateTree::build_in(&moved, (0.0, 0.0), 64.0, 8);
        fixed.summarize(10_000.0, 0.0, 0.5, &mut out);
        assert_eq!(out[0].size, 64.0);
    }

    #[test]
    fn points_outside_the_fixed_cell_are_still_included() {
        // SRV-10.
        let points = vec![
            WeightedPoint::new(1.0, 1.0, 1.0),
            WeightedPoint::new(-500.0, 900.0, 2.0),
        ];
        let tree = AggregateTree::build_in(&points, (0.0, 0.0), 10.0, 8);
        let mut out = Vec::new();
        tree.summarize(0.0, 0.0, 0.0, &mut out);
        assert_eq!(all_members(&tree, &out), [0, 1]);
    }

    #[test]
    fn empty_and_degenerate_inputs_do_not_panic() {
        let empty = AggregateTree::build(&[], 8);
        assert!(empty.is_empty());
        assert_eq!(empty.len(), 0);
        let mut out = Vec::new();
        empty.summarize(0.0, 0.0, 0.5, &mut out);
        assert!(out.is_empty());

        let odd = vec![
            WeightedPoint::new(f32::NAN, 1.0, 1.0),
            WeightedPoint::new(f32::INFINITY, f32::NEG_INFINITY, 0.0),
            WeightedPoint::new(3.0, 4.0, 0.0),
            WeightedPoint::new(3.0, 4.0, 0.0),
        ];
        for max_depth in [0, 1, 255] {
            let tree = AggregateTree::build(&odd, max_depth);
            assert_eq!(tree.len(), 4);
            tree.summarize(0.0, 0.0, 0.5, &mut out);
            assert_eq!(out.iter().map(|s| s.count).sum::<u32>(), 4);
        }
        // Weightless group: positioned at the plain mean, not at NaN.
        let tree = AggregateTree::build_in(&odd[2..], (0.0, 0.0), 100.0, 0);
        tree.summarize(1000.0, 1000.0, 0.5, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].x, out[0].y, out[0].weight), (3.0, 4.0, 0.0));
    }

    #[test]
    fn max_depth_zero_is_one_leaf() {
        let points = cluster(0.0, 0.0, 8);
        let tree = AggregateTree::build(&points, 0);
        assert_eq!(tree.node_count(), 1);
        let mut out = Vec::new();
        tree.summarize(0.0, 0.0, 0.5, &mut out);
        assert_eq!(out.len(), 1);
        tree.summarize(0.0, 0.0, 0.0, &mut out);
        assert_eq!(out.len(), 8);
    }
}
