//! Man pages and shell completions, generated from the clap definitions in [`defs`], which
//! are themselves derived from the tables the parsers use. `bai-slurm __generate DIR`
//! writes them; the committed copies under man/ and completions/ are checked against a
//! fresh generation by tests/generated_files.rs.

pub mod defs;
pub mod dynamic;
pub mod help_text;

use clap_complete::Shell;
use defs::Def;
use std::path::Path;

/// The date the man pages carry (their `.TH` line): the release date of this version, so
/// that generating them twice gives the same bytes. Change it with the version.
const PAGES_DATE: &str = "2026-11-30";

/// Every generated file: its path under the repository root, and its bytes.
pub fn files() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for def in defs::all() {
        let name = def.cmd.get_name().to_string();
        out.push((format!("man/man1/{name}.1"), man_page(&def)));
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let path = match shell {
                Shell::Bash => format!("completions/bash/{name}"),
                Shell::Zsh => format!("completions/zsh/_{name}"),
                _ => format!("completions/fish/{name}.fish"),
            };
            out.push((path, completion(&def, shell)));
        }
    }
    out
}

/// Writes [`files`] under `dir`, creating folders as needed.
pub fn write_to(dir: &Path) -> std::io::Result<usize> {
    let files = files();
    for (rel, bytes) in &files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)?;
    }
    Ok(files.len())
}

/// The man pages say of every option what bai-slurm does with it; completions repeat only
/// what differs from Slurm (an option ignored or rejected).
const HONOURED: &str = " [bai-slurm: honoured]";

fn without_honoured(cmd: clap::Command) -> clap::Command {
    let mut cmd = cmd.mut_args(|a| match a.get_help().map(|h| h.to_string()) {
        Some(h) if h.ends_with(HONOURED) => {
            let h = h[..h.len() - HONOURED.len()].to_string();
            a.help(h)
        }
        _ => a,
    });
    let subs: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in subs {
        cmd = cmd.mut_subcommand(name, |s| {
            let about = s.get_about().map(|a| a.to_string()).unwrap_or_default();
            let about = about.strip_suffix(HONOURED).unwrap_or(&about).to_string();
            without_honoured(s).about(about)
        });
    }
    cmd
}

fn completion(def: &Def, shell: Shell) -> Vec<u8> {
    let mut cmd = without_honoured(def.cmd.clone());
    let name = cmd.get_name().to_string();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, &name, &mut buf);
    let script = String::from_utf8(buf).expect("clap_complete writes UTF-8");
    dynamic::add(def, shell, script).into_bytes()
}

fn man_page(def: &Def) -> Vec<u8> {
    let name = def.cmd.get_name().to_string();
    let man = clap_mangen::Man::new(def.cmd.clone())
        .manual("bai-slurm")
        .date(PAGES_DATE)
        .source(format!("bai-slurm {}", env!("CARGO_PKG_VERSION")));
    type Part = fn(&clap_mangen::Man, &mut dyn std::io::Write) -> std::io::Result<()>;
    let parts: [Part; 5] = [
        clap_mangen::Man::render_title,
        clap_mangen::Man::render_name_section,
        clap_mangen::Man::render_synopsis_section,
        clap_mangen::Man::render_description_section,
        clap_mangen::Man::render_options_section,
    ];
    // Every rendered piece starts with the same preamble; the page keeps one.
    let preamble = roff::Roff::new().render();
    let mut page = preamble.clone();
    let mut piece = |render: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| {
        let mut buf = Vec::new();
        render(&mut buf).expect("rendering to memory");
        let text = String::from_utf8(buf).expect("roff is UTF-8");
        page.push_str(text.strip_prefix(&preamble).unwrap_or(&text));
    };
    for part in parts {
        piece(&|b| part(&man, b));
    }
    let mut extra = roff::Roff::new();
    // Subcommands (scontrol's keywords, bai-slurm's commands) are described here rather
    // than as pages of their own.
    if def.cmd.has_subcommands() {
        extra.control("SH", ["COMMANDS"]);
        for sub in def.cmd.get_subcommands() {
            extra.control("TP", []);
            let usage = sub.clone().render_usage().to_string();
            let usage = usage.strip_prefix("Usage: ").unwrap_or(&usage);
            let args = usage.strip_prefix(sub.get_name()).unwrap_or(usage).trim();
            let mut head = vec![roff::bold(sub.get_name())];
            if !args.is_empty() {
                head.push(roff::roman(" "));
                head.push(roff::italic(args));
            }
            extra.text(head);
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            extra.text([roff::roman(about)]);
        }
    }
    for (heading, paragraphs) in &def.sections {
        extra.control("SH", [*heading]);
        for (i, p) in paragraphs.iter().enumerate() {
            if i > 0 {
                extra.control("PP", []);
            }
            extra.text([roff::roman(p.as_str())]);
        }
    }
    if name != "bai-slurm" {
        extra.control("SH", ["SEE ALSO"]);
        let others: Vec<String> = defs::SLURM_COMMANDS
            .iter()
            .filter(|c| **c != name)
            .map(|c| format!("{c}(1)"))
            .chain(["bai-slurm(1)".to_string()])
            .collect();
        extra.text([roff::roman(others.join(", "))]);
    }
    piece(&|b| extra.to_writer(b));
    piece(&|b| man.render_version_section(b));
    page.into_bytes()
}
