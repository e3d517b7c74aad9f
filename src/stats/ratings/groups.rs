//! Who is connected to whom: players who never met the rest of the pool (directly or through
//! opponents) form a separate group, and whole-pool ratings between groups would be invented.

/// Connected groups of the players who played, largest first (ties: lowest member first);
/// each group's members are sorted.
pub fn connected_groups(players: usize, pairs: impl Iterator<Item = (u32, u32)>) -> Vec<Vec<u32>> {
    let mut parent: Vec<u32> = (0..players as u32).collect();
    let mut played = vec![false; players];
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let up = parent[parent[x as usize] as usize];
            parent[x as usize] = up;
            x = up;
        }
        x
    }
    for (a, b) in pairs {
        played[a as usize] = true;
        played[b as usize] = true;
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            parent[hi as usize] = lo;
        }
    }
    let mut index: Vec<Option<usize>> = vec![None; players];
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for p in 0..players as u32 {
        if !played[p as usize] {
            continue;
        }
        let root = find(&mut parent, p) as usize;
        let g = *index[root].get_or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(p);
    }
    groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_groups_and_a_bystander() {
        let groups = connected_groups(7, [(0, 1), (1, 2), (4, 5), (6, 4), (3, 3)].into_iter());
        assert_eq!(groups, vec![vec![0, 1, 2], vec![4, 5, 6], vec![3]]);
        assert!(connected_groups(3, std::iter::empty()).is_empty());
    }
}
