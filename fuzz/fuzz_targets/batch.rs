//! Batch mode (`templex::batch::run_records`, in-memory template store and sink) over a
//! small WARC made from the input.
//!
//! Input: a control byte, then the data. Control byte: bit 0 set, the data are the WARC file
//! itself; clear, they are up to six pages separated by `templex_fuzz::PAGE_SEPARATOR`,
//! written with the library's `WarcWriter` as responses (bit 1: gzipped per record; bit 4:
//! the pages alternate between two hosts, else one; bit 5: a `windows-1252` charset in the
//! HTTP header). Bits 2-3: the method (table chunks, HybEx, SITELEVEL, main content).
//! Settings small enough that a few pages learn a template (min_pages 2) and that later
//! pages get it applied (window 3).
#![no_main]

use libfuzzer_sys::fuzz_target;
use templex::Method;
use templex::batch::{BatchConfig, BatchInput, OutRecord, records, run_records};
use templex::source::warc::WarcWriter;
use templex::store::TemplateStore;

const METHODS: [Method; 4] = [
    Method::TableChunk,
    Method::HybEx,
    Method::SiteLevel,
    Method::MainContent,
];

fuzz_target!(|data: &[u8]| {
    let (control, rest) = templex_fuzz::control(data);
    let path = templex_fuzz::scratch_path("batch.warc");
    if control & 1 != 0 {
        std::fs::write(&path, rest).unwrap();
    } else {
        let pages = templex_fuzz::split_pages(rest, 1, 6);
        let mut w = WarcWriter::create(&path, control & 2 != 0).unwrap();
        w.write_warcinfo(&[("description", "fuzz")]).unwrap();
        for (k, body) in pages.iter().enumerate() {
            let host = if control & 16 != 0 && k % 2 == 1 {
                "www.fuzz-b.example"
            } else {
                "www.fuzz-a.example"
            };
            let charset = (control & 32 != 0).then_some("windows-1252");
            w.write_response(&format!("https://{host}/p{k}.html"), body, charset)
                .unwrap();
        }
        w.finish().unwrap();
    }
    let config = BatchConfig {
        method: METHODS[((control >> 2) & 3) as usize],
        site_sample: 10,
        sample_pages: 4,
        min_pages: 2,
        window: 3,
        quiet: 3,
        chunk: 2,
        ..BatchConfig::default()
    };
    let mut store = TemplateStore::in_memory().unwrap();
    let mut sink: Vec<OutRecord> = Vec::new();
    let items = records(&[BatchInput::Warc(path)]);
    let _ = run_records(items, "fuzz", &config, &mut store, &mut sink, &|_| {});
});
