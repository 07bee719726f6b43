//! Compiles the reference protocol's layouts (the files `reference_sources` embeds), prints
//! every diagnostic, and names each file not in canonical form (`ackwire fmt`'s):
//! `cargo run -p ackwire-spec --example check_reference`. A check of the layouts that needs
//! neither the codec nor the cli, so a layout can be checked before a printer supports it.

fn main() -> std::process::ExitCode {
    let sources = ackwire_spec::reference_sources();
    match ackwire_spec::compile(&sources) {
        Ok(spec) => {
            let mut canonical = true;
            for (file, source) in spec.files.iter().zip(&sources) {
                if ackwire_spec::fmt::format_file(file) != source.text {
                    println!("{}: not in canonical form", source.name);
                    canonical = false;
                }
            }
            println!("{} files compile", spec.files.len());
            if canonical {
                std::process::ExitCode::SUCCESS
            } else {
                std::process::ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::FAILURE
        }
    }
}
