// Finds libsnarkd_supraseal. In order:
//   SNARKD_SUPRASEAL_LIB_DIR=<dir>  the folder holding libsnarkd_supraseal.so / .a (a build tree's
//                                    build/src/snarkd/ffi, or an installed lib folder);
//   pkg-config snarkd-supraseal      an installed snarkd (`cmake --install`), or PKG_CONFIG_PATH.
// SNARKD_SUPRASEAL_STATIC=1 links the static archive (self-contained but for the C++ runtime and,
// in CUDA builds, what pkg-config --static lists); otherwise the shared library, with an rpath
// for this package's own tests (dependents set their rpath or LD_LIBRARY_PATH: docs/FILECOIN.md).
use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    for var in ["SNARKD_SUPRASEAL_LIB_DIR", "SNARKD_SUPRASEAL_STATIC", "PKG_CONFIG_PATH"] {
        println!("cargo:rerun-if-env-changed={}", var);
    }
    let want_static = env::var("SNARKD_SUPRASEAL_STATIC").map(|v| v == "1").unwrap_or(false);
    match env::var("SNARKD_SUPRASEAL_LIB_DIR") {
        Ok(dir) => from_dir(Path::new(&dir), want_static),
        Err(_) => from_pkg_config(want_static),
    }
}

fn from_dir(dir: &Path, want_static: bool) {
    let file = if want_static { "libsnarkd_supraseal.a" } else { "libsnarkd_supraseal.so" };
    if !dir.join(file).exists() {
        panic!("SNARKD_SUPRASEAL_LIB_DIR={}: no {} there (build snarkd first: docs/FILECOIN.md)", dir.display(), file);
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    // A static archive is bundled into this crate's rlib: a rebuilt library must rebuild it.
    println!("cargo:rerun-if-changed={}", dir.join(file).display());
    if want_static {
        println!("cargo:rustc-link-lib=static=snarkd_supraseal");
        println!("cargo:rustc-link-lib=dylib=stdc++");
    } else {
        println!("cargo:rustc-link-lib=dylib=snarkd_supraseal");
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    }
}

fn from_pkg_config(want_static: bool) {
    let mut cmd = Command::new("pkg-config");
    cmd.arg("--libs");
    if want_static {
        cmd.arg("--static");
    }
    cmd.arg("snarkd-supraseal");
    let out = match cmd.output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        Ok(o) => panic!(
            "pkg-config snarkd-supraseal failed ({}); install snarkd (cmake --install) or set SNARKD_SUPRASEAL_LIB_DIR",
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => panic!("cannot run pkg-config ({}); set SNARKD_SUPRASEAL_LIB_DIR instead", e),
    };
    let mut dirs = Vec::new();
    for flag in out.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", dir);
            dirs.push(dir.to_string());
        } else if let Some(lib) = flag.strip_prefix("-l") {
            let kind = if want_static && lib == "snarkd_supraseal" { "static" } else { "dylib" };
            println!("cargo:rustc-link-lib={}={}", kind, lib);
        } else if flag.ends_with(".a") {
            // A full path (the CUDA runtime's static archive in CUDA builds).
            let p = Path::new(flag);
            if let (Some(dir), Some(stem)) = (p.parent(), p.file_stem().and_then(|s| s.to_str())) {
                println!("cargo:rustc-link-search=native={}", dir.display());
                println!("cargo:rustc-link-lib=static={}", stem.trim_start_matches("lib"));
            }
        } else {
            println!("cargo:rustc-link-arg={}", flag);
        }
    }
    if !want_static {
        for dir in dirs {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir);
        }
    }
}
