//! The web page: the HTML, CSS and JavaScript modules in `web/`, built into
//! the binary so that `mille serve` alone serves everything, answered at
//! `GET /` and `GET /NAME`. With `--web DIR` the files are read from DIR at
//! every request instead, so that the page can be worked on without a
//! rebuild. The site's pages beside the lobby (the ladder, players,
//! finished games: see [`crate::pages`]) are one more HTML file,
//! `site.html`, answered at their addresses by [`site`].

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::Shared;

/// Every file of the page, by the name it is served under.
pub const FILES: &[(&str, &[u8])] = &[
    ("index.html", include_bytes!("../web/index.html")),
    ("base.css", include_bytes!("../web/base.css")),
    ("mille.css", include_bytes!("../web/mille.css")),
    ("cubes.css", include_bytes!("../web/cubes.css")),
    ("app.js", include_bytes!("../web/app.js")),
    ("net.js", include_bytes!("../web/net.js")),
    ("ui.js", include_bytes!("../web/ui.js")),
    ("lobby.js", include_bytes!("../web/lobby.js")),
    ("mille.js", include_bytes!("../web/mille.js")),
    ("cubes.js", include_bytes!("../web/cubes.js")),
    ("cards.js", include_bytes!("../web/cards.js")),
    ("icon.svg", include_bytes!("../web/icon.svg")),
    ("site.html", include_bytes!("../web/site.html")),
    ("site.js", include_bytes!("../web/site.js")),
    ("site.css", include_bytes!("../web/site.css")),
];

/// What the page may load and where it may connect: only this server.
/// Scripts and style sheets come from files, never from inline text; the
/// WebSocket goes back to the page's own host.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
    img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; \
    frame-ancestors 'none'";

/// The media type of a page file, by its extension; `None` for a name
/// that is no kind of page file.
fn content_type(name: &str) -> Option<&'static str> {
    match name.rsplit_once('.')?.1 {
        "html" => Some("text/html; charset=utf-8"),
        "css" => Some("text/css; charset=utf-8"),
        "js" => Some("text/javascript; charset=utf-8"),
        "svg" => Some("image/svg+xml"),
        _ => None,
    }
}

/// A file's entity tag: a digest of its bytes, so that a browser asks
/// again at every load (the server may have been upgraded) and is
/// answered "not modified" while nothing changed.
fn etag(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// The built-in files' entity tags, computed once.
fn builtin_etags() -> &'static [String] {
    static TAGS: OnceLock<Vec<String>> = OnceLock::new();
    TAGS.get_or_init(|| FILES.iter().map(|(_, b)| etag(b)).collect())
}

/// The file named `name` (`index.html` for `/`), from `dir` when given,
/// else built in.
fn find(name: &str, dir: Option<&Path>) -> Option<(Cow<'static, [u8]>, String)> {
    match dir {
        // Plain file names of the page's kinds only: nothing above the
        // directory, nothing hidden, nothing that is not part of a page.
        Some(dir) if page_name(name) => {
            let bytes = std::fs::read(dir.join(name)).ok()?;
            let tag = etag(&bytes);
            Some((Cow::Owned(bytes), tag))
        }
        Some(_) => None,
        None => {
            let i = FILES.iter().position(|(n, _)| *n == name)?;
            Some((Cow::Borrowed(FILES[i].1), builtin_etags()[i].clone()))
        }
    }
}

/// Whether `name` may be a file of the page: letters, digits and `-`,
/// then one of the page's extensions.
fn page_name(name: &str) -> bool {
    match name.rsplit_once('.') {
        Some((stem, _)) => {
            !stem.is_empty()
                && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && content_type(name).is_some()
        }
        None => false,
    }
}

/// Answers a `GET` for a file of the page.
pub async fn file(State(shared): State<Arc<Shared>>, uri: Uri, headers: HeaderMap) -> Response {
    let name = match uri.path().trim_start_matches('/') {
        "" => "index.html",
        n => n,
    };
    serve(&shared, name, &headers, StatusCode::OK)
}

/// Answers a `GET` for one of the site's pages (`/ladder`, `/players/NAME`,
/// `/games/ID`): the one HTML file that draws them all, with `status` (a
/// page whose address is wrong still comes, to say so).
pub fn site(shared: &Shared, headers: &HeaderMap, status: StatusCode) -> Response {
    serve(shared, "site.html", headers, status)
}

/// Answers with the page file `name`.
fn serve(shared: &Shared, name: &str, headers: &HeaderMap, status: StatusCode) -> Response {
    let Some((bytes, tag)) = find(name, shared.config.web_dir.as_deref()) else {
        return (StatusCode::NOT_FOUND, "not found\n").into_response();
    };
    let mut out = HeaderMap::new();
    let set = |out: &mut HeaderMap, key, value: &str| {
        if let Ok(v) = HeaderValue::from_str(value) {
            out.insert(key, v);
        }
    };
    set(&mut out, header::ETAG, &tag);
    set(&mut out, header::CACHE_CONTROL, "no-cache");
    set(&mut out, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(&mut out, header::CONTENT_SECURITY_POLICY, CSP);
    set(&mut out, header::REFERRER_POLICY, "no-referrer");
    let unchanged = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| matches_tag(v, &tag));
    if unchanged && status == StatusCode::OK {
        return (StatusCode::NOT_MODIFIED, out).into_response();
    }
    set(
        &mut out,
        header::CONTENT_TYPE,
        content_type(name).unwrap_or("application/octet-stream"),
    );
    (status, out, bytes).into_response()
}

/// Whether an `If-None-Match` value names `tag` (weakly, as proxies may
/// give it back) or is `*`.
fn matches_tag(value: &str, tag: &str) -> bool {
    value.split(',').any(|t| {
        let t = t.trim();
        t == "*" || t.trim_start_matches("W/") == tag
    })
}

/// The page's total size in bytes, as served.
pub fn page_bytes() -> usize {
    FILES.iter().map(|(_, b)| b.len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_of_the_web_directory_is_built_in_and_nothing_else() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .expect("web directory")
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let mut built_in: Vec<String> = FILES.iter().map(|(n, _)| n.to_string()).collect();
        built_in.sort();
        assert_eq!(on_disk, built_in);
        for (name, bytes) in FILES {
            assert_eq!(
                std::fs::read(dir.join(name)).expect("file"),
                *bytes,
                "{name}"
            );
            assert!(content_type(name).is_some(), "{name}");
        }
    }

    #[test]
    fn the_page_stays_under_300_kb() {
        assert!(page_bytes() < 300 * 1024, "{} bytes", page_bytes());
    }

    #[test]
    fn a_tag_given_back_weakly_or_a_star_means_unchanged() {
        let tag = etag(b"page");
        assert!(matches_tag(&tag, &tag));
        assert!(matches_tag(&format!("W/{tag}"), &tag));
        assert!(matches_tag(&format!("\"x\", {tag}"), &tag));
        assert!(matches_tag("*", &tag));
        assert!(!matches_tag("\"other\"", &tag));
    }

    #[test]
    fn only_the_page_names_are_found() {
        assert!(find("index.html", None).is_some());
        assert!(find("../Cargo.toml", None).is_none());
        assert!(find("health", None).is_none());
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        // A directory given with --web serves its page files only.
        assert!(find("Cargo.toml", Some(dir)).is_none());
        assert!(find("../web/app.js", Some(dir)).is_none());
        assert!(find(".hidden.js", Some(dir)).is_none());
        assert!(find("app.js", Some(&dir.join("web"))).is_some());
    }
}
