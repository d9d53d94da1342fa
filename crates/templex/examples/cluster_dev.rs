//! Development aid: template clusters of every site mirror under a few settings.
//!
//! `cargo run --release -p templex --example cluster_dev -- DATA_DIR`
use templex::dev::{ClusterConfig, Fingerprint, cluster, sample_indices};

fn main() {
    let data = std::path::PathBuf::from(std::env::args().nth(1).expect("DATA_DIR"));
    for s in templex::eval::read_sites(&data).unwrap() {
        let dir = s.path(&data);
        let src = templex::sources::MirrorSource::new(&dir, &[] as &[&str]).unwrap();
        let files = src.html_files();
        let pick = sample_indices(files.len(), 200, 1);
        let fps: Vec<Fingerprint> = pick
            .iter()
            .map(|i| {
                Fingerprint::of(&templex::html::parse_bytes(
                    &std::fs::read(&files[*i]).unwrap(),
                    None,
                ))
            })
            .collect();
        for sim in [0.3, 0.4, 0.5] {
            let ids = cluster(
                &fps,
                ClusterConfig {
                    similarity: sim,
                    core_share: 0.5,
                },
            );
            let mut sizes = vec![0; ids.iter().max().map_or(0, |m| m + 1)];
            for k in ids {
                sizes[k] += 1;
            }
            sizes.sort_unstable_by(|a, b| b.cmp(a));
            sizes.truncate(8);
            println!("{:<26} sim {sim}: {sizes:?}", s.name);
        }
    }
}
