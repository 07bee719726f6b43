//! `ackwire bench` as a command: its arguments and the README's markers checked before minutes of
//! measuring ([`Command::prepare`]), the run ([`Command::run`]), then the JSON, the chart, the
//! report page and the README's headline block written ([`Command::write`]). The command line
//! only parses its arguments, shows progress and prints.

use crate::run::{self, Plan};
use crate::scenes::{SceneKind, LOSSES};
use crate::Report;
use crate::{page, render};
use std::path::{Path, PathBuf};

/// The arguments of `ackwire bench`.
#[derive(Debug, Clone, Default)]
pub struct Args {
    /// Five seconds of each scene instead of a minute.
    pub quick: bool,
    /// Only these scenes, by name (none: every scene).
    pub scenes: Vec<String>,
    /// Only these losses, per cent (none: [`LOSSES`]).
    pub losses: Vec<f64>,
    /// The seed of the scenes and the network.
    pub seed: u64,
    /// Where `bench.json`, `bench.svg` and the report page (`README.md`) are written.
    pub out: PathBuf,
    /// The markdown file whose bench block is rewritten with this run's headline figures and
    /// a link to the report page.
    pub readme: Option<PathBuf>,
}

/// A bench ready to run: the plan, where it writes, and the README whose block it rewrites
/// (its markers already checked).
#[derive(Debug, Clone)]
pub struct Command {
    plan: Plan,
    out: PathBuf,
    readme: Option<PathBuf>,
}

impl Command {
    /// Checks `args` (scene names, losses from 0 to 100) and the README's markers, so that a
    /// missing marker is found before the run rather than after it.
    pub fn prepare(args: Args) -> Result<Command, String> {
        let scenes = if args.scenes.is_empty() {
            SceneKind::ALL.to_vec()
        } else {
            args.scenes
                .iter()
                .map(|n| {
                    SceneKind::from_name(n)
                        .ok_or_else(|| format!("no scene `{n}` (there are cube, arena and floats)"))
                })
                .collect::<Result<_, _>>()?
        };
        if let Some(bad) = args.losses.iter().find(|l| !(0.0..=100.0).contains(*l)) {
            return Err(format!("--loss {bad} is not a percentage from 0 to 100"));
        }
        let losses = if args.losses.is_empty() {
            LOSSES.to_vec()
        } else {
            args.losses
        };
        if let Some(path) = &args.readme {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            render::replace_block(&text, "").map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(Command {
            plan: Plan {
                quick: args.quick,
                seed: args.seed,
                scenes,
                losses,
            },
            out: args.out,
            readme: args.readme,
        })
    }

    /// What runs.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Runs the plan, calling `progress` after each scene and loss with what is done and the
    /// total.
    pub fn run(&self, progress: impl FnMut(usize, usize)) -> Result<Report, String> {
        run::run(&self.plan, progress).map_err(|e| format!("the bench failed: {e}"))
    }

    /// Writes `bench.json`, `bench.svg`, the report page of `report` and, when the server bench
    /// ran, its chart `server.svg`, then the README's headline block, each naming `command` as
    /// what produced it; `wrote` is told each file as it is written (`wrote PATH`, `rewrote the
    /// bench block of PATH`).
    pub fn write(
        &self,
        report: &Report,
        command: &str,
        mut wrote: impl FnMut(String),
    ) -> Result<(), String> {
        let out: &Path = &self.out;
        std::fs::create_dir_all(out)
            .map_err(|e| format!("cannot create {}: {e}", out.display()))?;
        let json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
        let mut files = vec![
            ("bench.json", json),
            ("bench.svg", render::svg(report)),
            (page::PAGE, page::page(report, command)),
        ];
        if !report.server.is_empty() {
            files.push((page::SERVER_CHART, render::server_svg(report)));
        }
        for (name, text) in files {
            let path = out.join(name);
            std::fs::write(&path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            wrote(format!("wrote {}", path.display()));
        }
        if let Some(path) = &self.readme {
            // Read again: the file may have been edited during the minutes of the run.
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let link = relative(path, &out.join(page::PAGE))?;
            let block = page::headline(report, command, &link);
            let text = render::replace_block(&text, &block)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            std::fs::write(path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            wrote(format!("rewrote the bench block of {}", path.display()));
        }
        Ok(())
    }
}

/// The path of `target` as a markdown link from the folder of the file `from`: `/`-separated,
/// through `..` where the two part. Both must exist.
fn relative(from: &Path, target: &Path) -> Result<String, String> {
    let canonical = |p: &Path| {
        std::fs::canonicalize(p).map_err(|e| format!("cannot resolve {}: {e}", p.display()))
    };
    let dir = match from.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let (dir, target) = (canonical(dir)?, canonical(target)?);
    let shared = dir
        .components()
        .zip(target.components())
        .take_while(|(a, b)| a == b)
        .count();
    let parts: Vec<String> =
        std::iter::repeat_n("..".to_owned(), dir.components().count() - shared)
            .chain(
                target
                    .components()
                    .skip(shared)
                    .map(|c| c.as_os_str().to_string_lossy().into_owned()),
            )
            .collect();
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenes_and_losses_are_checked_before_the_run() {
        let args = |scenes: &[&str], losses: &[f64]| Args {
            scenes: scenes.iter().map(|s| s.to_string()).collect(),
            losses: losses.to_vec(),
            ..Args::default()
        };
        let c = Command::prepare(args(&[], &[])).unwrap();
        assert_eq!(c.plan().scenes, SceneKind::ALL);
        assert_eq!(c.plan().losses, LOSSES);
        assert!(Command::prepare(args(&["moon"], &[]))
            .unwrap_err()
            .contains("no scene `moon`"));
        assert!(Command::prepare(args(&["cube"], &[101.0]))
            .unwrap_err()
            .contains("--loss 101"));
    }

    #[test]
    fn the_page_is_linked_from_the_readme_folder() {
        let root =
            std::env::temp_dir().join(format!("ackwire-bench-relative-{}", std::process::id()));
        let page = root.join("docs/bench/README.md");
        std::fs::create_dir_all(page.parent().unwrap()).unwrap();
        std::fs::write(&page, "").unwrap();
        std::fs::write(root.join("README.md"), "").unwrap();
        std::fs::create_dir_all(root.join("other")).unwrap();
        std::fs::write(root.join("other/notes.md"), "").unwrap();
        assert_eq!(
            relative(&root.join("README.md"), &page).unwrap(),
            "docs/bench/README.md"
        );
        assert_eq!(
            relative(&root.join("other/notes.md"), &page).unwrap(),
            "../docs/bench/README.md"
        );
        assert!(relative(&root.join("README.md"), &root.join("missing.md"))
            .unwrap_err()
            .contains("missing.md"));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
