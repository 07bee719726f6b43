//! `ackwire conform`: the suite read from a vectors folder (every frame vector and both halves
//! of every stream vector), run against a testee by the [`runner`], and
//! reported as JUnit XML and JSON when asked. Progress goes through [`Progress`], so that the
//! command line can show a bar or print lines.
//!
//! With a spec of a team's own (`--spec`), decoded values are judged by the run-time codec of
//! that spec ([`Judge`]), and without a vectors folder the cases are the spec's derived
//! vectors, drawn as `ackwire vectors --spec` draws them: a client of any spec is proven in one
//! command, with nothing built but the client.

use crate::judge::Judge;
use crate::runner::{self, Case, Outcome, RunOptions, RunReport};
use crate::spec_arg::SpecArg;
use crate::{report, streams, vectors};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What to run and where the reports go.
#[derive(Debug, Clone)]
pub struct Options {
    /// The testee's command and arguments.
    pub testee: Vec<String>,
    /// Run only the cases whose name contains this text.
    pub filter: Option<String>,
    /// Known failures, one case name per line.
    pub failure_list: Option<PathBuf>,
    /// Write a JUnit XML report here.
    pub junit: Option<PathBuf>,
    /// Write a JSON summary here.
    pub json: Option<PathBuf>,
    /// How long one reply may take.
    pub timeout: Duration,
    /// The vectors folder (`frames/`, `derived/` and `streams/` inside); `None`: `vectors` for
    /// the reference protocol, the spec's derived vectors for another.
    pub dir: Option<PathBuf>,
    /// The layout files of the spec the testee implements (`--spec`); none: the reference
    /// protocol.
    pub spec: Vec<PathBuf>,
}

/// Told how a run goes.
pub trait Progress {
    /// The run is about to start, with this many cases.
    fn start(&mut self, cases: usize);
    /// One case ended.
    fn outcome(&mut self, outcome: &Outcome);
    /// The run ended: `completed` is false when it stopped early (no testee to speak to).
    fn finish(&mut self, completed: bool);
}

/// The cases of the vectors in `dir`: the frame vectors of `dir/frames`, the derived ones of
/// `dir/derived` (`ackwire vectors --out`), then the stream vectors of `dir/streams`, each
/// folder when it is there (at least one of them must be); those whose name contains `filter`
/// when one is given.
pub fn cases(dir: &Path, filter: Option<&str>) -> Result<Vec<Case>, String> {
    let streams_dir = dir.join("streams");
    let files = if dir.join("frames").is_dir() || dir.join("derived").is_dir() {
        vectors::read_frame_sets(dir).map_err(|e| e.to_string())?
    } else if streams_dir.is_dir() {
        Vec::new()
    } else {
        return Err(format!(
            "{} holds no vectors: no frames/, derived/ or streams/ folder",
            dir.display()
        ));
    };
    let mut cases = runner::frame_cases(&files)?;
    if streams_dir.is_dir() {
        let stream_vectors = streams::read_streams(&streams_dir).map_err(|e| e.to_string())?;
        cases.extend(runner::stream_cases(&stream_vectors));
    }
    if let Some(f) = filter {
        cases.retain(|c| c.name.contains(f));
    }
    Ok(cases)
}

/// Runs the suite as `options` say and writes the reports asked for; the report is returned
/// for the table ([`report::table`]) and the verdict ([`RunReport::unexpected`]).
pub fn conform(options: &Options, progress: &mut dyn Progress) -> Result<RunReport, String> {
    let arg = SpecArg::load(&options.spec).map_err(|e| e.to_string())?;
    let judge = Judge::of(&arg);
    let mut cases = match (&options.dir, &judge) {
        (Some(dir), _) => cases(dir, None)?,
        (None, Judge::Reference) => cases(Path::new("vectors"), None)?,
        (None, Judge::Spec(low)) => {
            runner::frame_cases(&vectors::derive::derive(low, vectors::derive::DEFAULT_SEED).files)?
        }
    };
    if !arg.reference {
        let frames = judge.frame_names();
        if let Some(stray) = cases
            .iter()
            .find(|c| c.session.is_none() && !frames.contains(&c.frame))
        {
            return Err(format!(
                "the vectors hold frame `{}`, which the spec does not have (its frames: {})",
                stray.frame,
                frames.join(", ")
            ));
        }
    }
    if let Some(f) = &options.filter {
        cases.retain(|c| c.name.contains(f.as_str()));
    }
    let failure_list = match &options.failure_list {
        Some(p) => runner::read_failure_list(
            &std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?,
        ),
        None => Default::default(),
    };
    let run_options = RunOptions {
        command: options.testee.clone(),
        timeout: options.timeout,
        failure_list,
    };
    progress.start(cases.len());
    let result = runner::run_judged(&cases, &run_options, &judge, |o| progress.outcome(o));
    progress.finish(result.is_ok());
    let run = result.map_err(|e| e.to_string())?;
    if let Some(path) = &options.junit {
        std::fs::write(path, report::junit(&run))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(path) = &options.json {
        let text = serde_json::to_string_pretty(&report::json(&run)).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(run)
}
