// SPDX-License-Identifier: BSD-3-Clause
//! Finds libtcomm and the MPI it was built with, compiles the MPI shim
//! (csrc/mpi_shim.c) with the MPI's compiler wrapper and tells cargo how
//! to link. Where things are found, in order:
//!
//! - libtcomm: `TCOMM_LIB_DIR` and `TCOMM_INCLUDE_DIR` (an uninstalled
//!   build tree: its `.libs` and `include/`), else `pkg-config tcomm`
//!   (honours `PKG_CONFIG_PATH`).
//! - MPI: the wrapper `MPICC` (default `mpicc`); its link flags from
//!   `--showme:link` (Open MPI), `-link_info` (MPICH), else the
//!   pkg-config file named by `TCOMM_MPI_PKG` (default: `ompi-c`, then
//!   `mpich`).
//!
//! Written for Rust 1.63 (Debian 12) and newer, std only.
use std::env;
use std::path::{Path, PathBuf};
use std::process::{exit, Command};

fn fail(what: &str) -> ! {
    eprintln!("tcomm build.rs: {}", what);
    exit(1);
}

/// stdout of a command that ran and succeeded, else None.
fn output_of(prog: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(prog).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout).ok()
}

fn env_path(name: &str) -> Option<PathBuf> {
    println!("cargo:rerun-if-env-changed={}", name);
    match env::var_os(name) {
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => None,
    }
}

/// (include dirs, lib dirs) of libtcomm.
fn find_tcomm() -> (Vec<PathBuf>, Vec<PathBuf>) {
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    let lib = env_path("TCOMM_LIB_DIR");
    let inc = env_path("TCOMM_INCLUDE_DIR");
    if lib.is_some() || inc.is_some() {
        let lib = match lib {
            Some(l) => l,
            None => fail(
                "TCOMM_INCLUDE_DIR is set but TCOMM_LIB_DIR is not \
                          (set it to the directory of libtcomm.so, e.g. a \
                          build tree's .libs)",
            ),
        };
        let inc = inc.unwrap_or_else(|| lib.join("..").join("include"));
        if !inc.join("tcomm.h").is_file() {
            fail(&format!(
                "no tcomm.h in TCOMM_INCLUDE_DIR={} (set it to \
                           the include/ of tcomm's sources or install)",
                inc.display()
            ));
        }
        return (vec![inc], vec![lib]);
    }
    let cflags = output_of("pkg-config", &["--cflags-only-I", "tcomm"]);
    let libs = output_of("pkg-config", &["--libs-only-L", "tcomm"]);
    match (cflags, libs) {
        (Some(c), Some(l)) => {
            let inc = c
                .split_whitespace()
                .filter_map(|t| t.strip_prefix("-I"))
                .map(PathBuf::from)
                .collect();
            let lib = l
                .split_whitespace()
                .filter_map(|t| t.strip_prefix("-L"))
                .map(PathBuf::from)
                .collect();
            (inc, lib)
        }
        _ => fail(
            "libtcomm not found: `pkg-config tcomm` fails. Install \
                   tcomm (make install) and point PKG_CONFIG_PATH at its \
                   lib/pkgconfig, or set TCOMM_LIB_DIR and TCOMM_INCLUDE_DIR \
                   (for a build tree: its .libs and include/)",
        ),
    }
}

/// Link flags of the MPI behind `mpicc`, as whitespace-separated tokens.
fn mpi_link_flags(mpicc: &str) -> String {
    if let Some(s) = output_of(mpicc, &["--showme:link"]) {
        return s;
    }
    if let Some(s) = output_of(mpicc, &["-link_info"]) {
        // "gcc <flags...>": drop the compiler itself.
        return s.split_whitespace().skip(1).collect::<Vec<_>>().join(" ");
    }
    println!("cargo:rerun-if-env-changed=TCOMM_MPI_PKG");
    let pkgs = match env::var("TCOMM_MPI_PKG") {
        Ok(p) if !p.is_empty() => vec![p],
        _ => vec!["ompi-c".to_string(), "mpich".to_string()],
    };
    for p in &pkgs {
        if let Some(s) = output_of("pkg-config", &["--libs", p]) {
            return s;
        }
    }
    fail(&format!(
        "cannot find MPI's link flags: `{} --showme:link`, \
                   `{} -link_info` and pkg-config {:?} all fail (set MPICC \
                   to the MPI compiler wrapper tcomm was built with)",
        mpicc, mpicc, pkgs
    ))
}

fn emit_link_flags(flags: &str) {
    for tok in flags.split_whitespace() {
        if let Some(dir) = tok.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", dir);
        } else if let Some(lib) = tok.strip_prefix("-l") {
            println!("cargo:rustc-link-lib={}", lib);
        } else if tok.starts_with("-Wl,") || tok == "-pthread" {
            println!("cargo:rustc-link-arg={}", tok);
        }
    }
}

fn compile_shim(mpicc: &str, incs: &[PathBuf], out: &Path) {
    let src = Path::new("csrc").join("mpi_shim.c");
    let obj = out.join("mpi_shim.o");
    let mut cc = Command::new(mpicc);
    cc.args(["-c", "-O2", "-fPIC", "-o"]).arg(&obj);
    for i in incs {
        cc.arg(format!("-I{}", i.display()));
    }
    cc.arg(&src);
    match cc.status() {
        Ok(s) if s.success() => {}
        Ok(_) => fail(&format!(
            "`{}` failed to compile {} (is MPICC the MPI \
                                wrapper tcomm was built with, and \
                                tcomm_mpi.h on the include path?)",
            mpicc,
            src.display()
        )),
        Err(e) => fail(&format!(
            "cannot run the MPI compiler `{}`: {} \
                                 (install MPI or set MPICC)",
            mpicc, e
        )),
    }
    println!("cargo:rerun-if-env-changed=AR");
    let ar = env::var("AR").unwrap_or_else(|_| "ar".to_string());
    let lib = out.join("libtcomm_rs_mpi_shim.a");
    let _ = std::fs::remove_file(&lib);
    match Command::new(&ar).arg("crs").arg(&lib).arg(&obj).status() {
        Ok(s) if s.success() => {}
        _ => fail(&format!(
            "`{} crs {}` failed (set AR to an archiver)",
            ar,
            lib.display()
        )),
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=csrc/mpi_shim.c");
    println!("cargo:rerun-if-env-changed=MPICC");
    let out = match env::var_os("OUT_DIR") {
        Some(o) => PathBuf::from(o),
        None => fail("OUT_DIR is not set (run through cargo)"),
    };
    let mpicc = env::var("MPICC").unwrap_or_else(|_| "mpicc".to_string());
    let (incs, libdirs) = find_tcomm();
    compile_shim(&mpicc, &incs, &out);

    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=tcomm_rs_mpi_shim");
    for d in &libdirs {
        println!("cargo:rustc-link-search=native={}", d.display());
        // The crate's own tests and examples find an uninstalled or
        // non-system libtcomm at run time without LD_LIBRARY_PATH.
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", d.display());
        println!("cargo:lib={}", d.display());
        // A new libtcomm (a new soname) relinks what links it.
        let so = d.join("libtcomm.so");
        if so.exists() {
            println!("cargo:rerun-if-changed={}", so.display());
        }
    }
    for i in &incs {
        println!("cargo:include={}", i.display());
    }
    println!("cargo:rustc-link-lib=dylib=tcomm");
    emit_link_flags(&mpi_link_flags(&mpicc));
}
