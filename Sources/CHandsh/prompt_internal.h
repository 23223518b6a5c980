// What the files of the prompt's C side share (handsh_prompt.h is what
// Swift sees): prompt.c reads keys and answers signals, prompt_completion.c
// answers Tab, prompt_preview.c draws the row under the line, and
// prompt_running.c keeps the screen whole while a line's commands run.
#ifndef HANDSH_PROMPT_INTERNAL_H
#define HANDSH_PROMPT_INTERNAL_H

#include <stdio.h>

#include "handsh_prompt.h"

/// A completion question or readline's `--More--` waits for its answer:
/// read_key answers `n` for a signal that interrupts.
extern int prompt_asking;

/// Sets readline's completion up to ask `completer` (with `context`).
void prompt_completion_begin(handsh_completer _Nullable completer, void *_Nullable context);
/// Forgets the completer, its context and the labels of the last listing.
void prompt_completion_end(void);

/// How many columns the terminal gives `count` bytes of `text` (as
/// readline counts them: wide characters two, combining marks none).
int prompt_text_width(const char *_Nonnull text, size_t count);

/// The terminal the prompt is drawn on, and whether it draws a preview.
void prompt_preview_begin(FILE *_Nonnull out);
void prompt_preview_end(void);
/// Erases the preview, if one is shown, leaving the cursor where it was.
void prompt_preview_erase(void);
/// Draws the preview of the line being typed (or erases it when there is
/// nothing to show), unless more keys wait to be read.
void prompt_preview_draw(void);
/// The preview is no longer on screen (the terminal was redrawn, or the
/// line left it behind): nothing to erase.
void prompt_preview_forget(void);

/// Around a line's commands: the terminal set so that Control-C and the
/// signals that end handsh cut results at a line's end (prompt_running.c).
void prompt_running_begin(int fd);
void prompt_running_end(void);
/// Control-Z while they run, from the signal handler: stops handsh with
/// the terminal as the shell left it, and sets it for the run again after.
void prompt_running_stop(void);
/// Stops handsh now, by SIGTSTP's default action, whether it came from
/// Control-Z at the prompt or while commands run; returns once it is
/// continued (prompt_running.c).
void prompt_stop_now(void);

#endif
