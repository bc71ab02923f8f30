// Package contentuse owns the vocabulary of content-use signals: what a
// site says its content may be used for, read from four kinds of source,
// normalised to one set of uses, combined, and checked against the
// purpose a crawl declares (policy.purpose).
//
// # Sources
//
//   - The IETF AI Preferences vocabulary (draft-ietf-aipref-vocab, attached
//     by draft-ietf-aipref-attach): a Structured Fields dictionary such as
//     "train-ai=n, search=y", in a Content-Usage robots.txt rule or a
//     Content-Usage response header. ParseContentUsage.
//   - Cloudflare's Content Signals: "search=yes, ai-train=no, ai-input=no"
//     in a Content-Signal robots.txt line. ParseContentSignal.
//   - TDMRep (W3C TDM Reservation Protocol): the tdm-reservation and
//     tdm-policy response headers and meta tags (ParseTDM), and the
//     /.well-known/tdmrep.json file (ParseTDMRep).
//   - noai and noimageai in meta robots and X-Robots-Tag. FromDirectives.
//
// Each parser turns one expression into a Statement: the preferences it
// states (yes or no per use) and where it was read. Parsers are pure and
// never fail: what cannot be read states nothing (the vocabulary draft's
// rule), so a broken signal is the safe "unspecified", never an error.
//
// # Uses
//
// The vocabularies name overlapping uses differently. They are normalised
// to these, in a tree (a use without a preference of its own takes its
// parent's, as draft-ietf-aipref-vocab section 5 says):
//
//	bots             any automated processing (IETF "bots", formerly "all")
//	├─ search        search indexes that link back (IETF and Cloudflare "search")
//	└─ tdm           text and data mining (TDMRep tdm-reservation)
//	   ├─ ai-input   use as input to an AI answer: RAG, grounding (Cloudflare
//	   │             "ai-input"; IETF "ai-output" and "ai-use")
//	   └─ ai-train   training AI models (IETF "train-ai", Cloudflare
//	      │          "ai-train", noai)
//	      └─ ai-train-genai  generative AI training (IETF "train-genai")
//
// Labels no vocabulary here defines are kept as written, with their value,
// and ignored by every purpose: new labels keep arriving with each draft.
//
// # Combining
//
// Combine applies every statement to every use: if any says no, the use is
// no (the most restrictive preference wins, draft-ietf-aipref-vocab 5.1);
// else if any says yes, yes; else unspecified. Each answer keeps the
// source of the statement that decided it.
//
// # Caveats
//
//   - noimageai concerns images: it is recorded as ai-train-images and
//     refuses ai-train only for responses whose content type is image/*.
//   - The archive purpose is refused by nothing: no vocabulary has an
//     archiving category, and the IETF vocabulary names preservation as a
//     reason that can justify not following a preference. Its crawl
//     records every signal.
package contentuse
