"""Codes CR5xx: provider responses and chat exports (content references, spans, sources)."""

from __future__ import annotations

from .kinds import Code, Severity

ROWS = [
    Code(
        "CR501",
        "unknown-content-reference",
        Severity.WARNING,
        "a content reference of a type citerender does not know was shown as its text (alt or prompt_text)",
        "check how the page reads there; report the type so it can be supported",
    ),
    Code(
        "CR502",
        "unplaced-content-reference",
        Severity.WARNING,
        "a content reference's text was found neither at its offsets nor anywhere in the message",
        "no fix needed in the answer: the reference is left out",
    ),
    Code(
        "CR503",
        "span-repaired",
        Severity.WARNING,
        "a provider's citation span did not match its text as given: placed by its cited text, another unit or inclusive end",
        "check the citation's place; the provider's offsets may be in another unit (UTF-8 bytes, UTF-16)",
    ),
    Code(
        "CR504",
        "span-out-of-range",
        Severity.WARNING,
        "a provider's citation span lies outside the text: clamped to it",
        "check the citation's place",
    ),
    Code(
        "CR505",
        "citation-without-source",
        Severity.WARNING,
        "a provider's citation names no source it can be linked to (no URL, no known id): left out",
        "supply the sources with --sources when the response does not carry them",
    ),
    Code(
        "CR507",
        "unknown-citation-type",
        Severity.WARNING,
        "a provider's citation or annotation is of a type citerender does not read: its text is kept, and its URL as a source",
        "check how the answer reads there; report the type so it can be supported",
    ),
    Code(
        "CR508",
        "detached-messages",
        Severity.WARNING,
        "part of a conversation hangs from a message the export no longer holds: shown after the rest, under a note",
        "no fix needed: the export lost where those messages belong",
    ),
    Code(
        "CR509",
        "unresolved-export-reference",
        Severity.WARNING,
        "a citation in an exported answer names an id that neither the export's references nor its metadata resolve: shown as its text",
        "no fix needed in the answer; the export does not record what the id stood for",
    ),
    Code(
        "CR510",
        "citation-without-place",
        Severity.WARNING,
        "a provider cites a source without saying which words it supports (no span, or an empty one at the text's start): listed in Sources, not placed",
        "no fix needed in the answer; the provider gave no place for the citation",
    ),
    Code(
        "CR511",
        "url-not-retrieved",
        Severity.WARNING,
        "a page the model was asked to read could not be retrieved, or its web search failed (Gemini's URL context, Anthropic's web fetch and web search, OpenAI's web search calls): it supports nothing in the answer",
        "check the URL or the search's error; the answer was written without that page or those results",
    ),
    Code(
        "CR512",
        "earlier-turns-not-shown",
        Severity.WARNING,
        "a saved agent history (OpenAI Agents SDK input list, session items or run state) or a page of OpenAI Assistants thread messages holds earlier turns than the answer shown: only its last answer is rendered",
        "no fix needed: to render an earlier answer, save that turn's items (or list that run's messages: `run_id=`) on their own",
    ),
    Code(
        "CR513",
        "file-not-linked",
        Severity.WARNING,
        "a file the answer links or shows has no address a reader can open (a code interpreter's output behind a `sandbox:` link, a `file_path` annotation, an Assistants `image_file`): its label or [image] is shown, cited to the file named in Sources, not linked",
        "download the file from the provider by its file id (in the source's data) and link it if readers need it",
    ),
    Code(
        "CR514",
        "unfinished-answer",
        Severity.WARNING,
        "an answer the provider did not finish, shown as far as it came: the response says it was cut off (OpenAI's finish_reason length or content_filter, a Responses or Gemini Interactions status incomplete, Anthropic's stop_reason max_tokens, refusal or pause_turn, Gemini's finishReason MAX_TOKENS, SAFETY, RECITATION…, Cohere's finish_reason MAX_TOKENS, Bedrock's stopReason max_tokens, a ChatGPT or Claude export's max_tokens or interrupted answer: the message names the field and its value), an Assistants message or run is incomplete, failed, cancelled or expired, or a saved stream ends before the message completed",
        "raise the output token limit and run it again, or save the stream to its end; a citation the cut left open is reported on its own (CR107)",
    ),
    Code(
        "CR515",
        "search-suggestion-unlinked",
        Severity.WARNING,
        "Gemini's Search Suggestions (searchEntryPoint) hold a chip without an https link, or no chip at all: its query text (or the response's webSearchQueries) is shown after the answer without a link",
        "check the saved response: Google's widget links each chip to its search",
    ),
    Code(
        "CR516",
        "incomplete-export",
        Severity.WARNING,
        "a sharded ChatGPT export (conversations-000.json, conversations-001.json …) lacks a shard numbered between those it holds, or its zip holds two members of one name, or two files hold one shard number: what is there is read (of two members of one name, the last, as unzip keeps it); a missing shard's conversations are not shown",
        "download the export again, or put the missing shard beside the others; the note is on the export's first conversation",
    ),
    Code(
        "CR506",
        "broken-conversation",
        Severity.ERROR,
        "a conversation's message graph has a cycle, a node that is not an object or an id that is not a string: the conversation was skipped",
        "the rest of the export is built; repair or remove that conversation in the export",
    ),
]
