// The preview (handsh(1), THE PROMPT): the row under the line being typed
// shows what Enter would do, as Swift's previewer tells it. Drawn after a
// key when no other key waits, erased before the next key is handled and
// before anything else is written (Enter's results, `^C`, a stop, the end),
// with relative cursor motion only, so that readline's idea of where the
// line is never changes: the cursor always comes back where readline left
// it.
#define _GNU_SOURCE  // wcwidth
#include "prompt_internal.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <readline/readline.h>

static struct {
  handsh_previewer previewer;
  void *context;
  /// Dimmed (SGR 2): colour is on.
  int dim;
  FILE *out;
  /// Rows from the cursor down to the preview shown (0: none shown).
  int shown;
} preview;

void handsh_prompt_preview(handsh_previewer previewer, void *context, int dim) {
  preview.previewer = previewer;
  preview.context = context;
  preview.dim = dim;
}

void prompt_preview_begin(FILE *out) {
  preview.out = out;
  preview.shown = 0;
}

void prompt_preview_end(void) {
  preview.previewer = NULL;
  preview.context = NULL;
  preview.shown = 0;
}

void prompt_preview_forget(void) { preview.shown = 0; }

void prompt_preview_erase(void) {
  if (preview.shown <= 0) return;
  // Down (no scrolling: the row is there), clear it, and back up.
  fprintf(preview.out, "\x1b[%dB\x1b[2K\x1b[%dA", preview.shown, preview.shown);
  fflush(preview.out);
  preview.shown = 0;
}

/// The column (from the start of the prompt's row, 0-based, not wrapped)
/// after `count` bytes of `text` drawn from column `column`, as readline
/// draws them: a tab to the next multiple of 8, a control character as
/// two (`^X`), a wide character two, a combining mark none.
static int columns_after(const char *text, size_t count, int column) {
  mbstate_t state;
  memset(&state, 0, sizeof state);
  while (count > 0) {
    unsigned char byte = (unsigned char)*text;
    size_t length = 1;
    if (byte == '\t') {
      column = (column / 8 + 1) * 8;
    } else if (byte < 0x20 || byte == 0x7f) {
      column += 2;
    } else {
      wchar_t wide;
      length = mbrtowc(&wide, text, count, &state);
      if (length == (size_t)-1 || length == (size_t)-2 || length == 0) {
        memset(&state, 0, sizeof state);
        length = 1;
        column += 4;  // readline shows a stray byte as `\ooo`
      } else {
        int width = wcwidth(wide);
        column += width > 0 ? width : 0;
      }
    }
    text += length;
    count -= length;
  }
  return column;
}

/// `text` cut to at most `width` columns, with `…` in place of the rest:
/// a new string.
static char *cut_to(const char *text, int width) {
  size_t length = strlen(text);
  if (prompt_text_width(text, length) <= width) return strdup(text);
  mbstate_t state;
  memset(&state, 0, sizeof state);
  size_t kept = 0;
  int used = 0;
  while (kept < length) {
    wchar_t wide;
    size_t size = mbrtowc(&wide, text + kept, length - kept, &state);
    if (size == (size_t)-1 || size == (size_t)-2 || size == 0) break;
    int columns = wcwidth(wide);
    if (columns < 0) columns = 0;
    if (used + columns > width - 1) break;
    used += columns;
    kept += size;
  }
  char *cut = malloc(kept + sizeof "…");
  if (cut == NULL) return NULL;
  memcpy(cut, text, kept);
  memcpy(cut + kept, "…", sizeof "…");
  return cut;
}

/// Whether readline shows something else than the prompt and the line
/// (a search, a numeric argument) or keys wait to be read: no preview now.
static int busy(void) {
  if (RL_ISSTATE(
          RL_STATE_ISEARCH | RL_STATE_NSEARCH | RL_STATE_SEARCH | RL_STATE_NUMERICARG |
          RL_STATE_COMPLETING | RL_STATE_MOREINPUT | RL_STATE_MULTIKEY)) {
    return 1;
  }
  if (rl_instream == NULL) return 1;
  struct pollfd waiting = {fileno(rl_instream), POLLIN, 0};
  return poll(&waiting, 1, 0) > 0;
}

void prompt_preview_draw(void) {
  if (preview.previewer == NULL || preview.out == NULL) return;
  prompt_preview_erase();
  if (busy()) return;
  char *text = preview.previewer(preview.context, rl_line_buffer != NULL ? rl_line_buffer : "");
  if (text == NULL) return;
  int rows = 0, width = 0;
  rl_get_screen_size(&rows, &width);
  char *shown = width > 1 ? cut_to(text, width - 1) : NULL;
  free(text);
  if (shown == NULL) return;
  const char *prompt = rl_prompt != NULL ? rl_prompt : "";
  int start = columns_after(prompt, strlen(prompt), 0);
  int cursor = columns_after(rl_line_buffer, (size_t)rl_point, start);
  int end = columns_after(rl_line_buffer, (size_t)rl_end, start);
  int down = end / width - cursor / width + 1;
  int column = cursor % width;
  // Line breaks, not cursor motion, to reach the row: at the bottom of
  // the screen they scroll it up to make room.
  for (int i = 0; i < down; i++) fputc('\n', preview.out);
  fprintf(preview.out, "\r%s%s%s\x1b[K\x1b[%dA\r", preview.dim ? "\x1b[2m" : "", shown,
          preview.dim ? "\x1b[22m" : "", down);
  if (column > 0) fprintf(preview.out, "\x1b[%dC", column);
  fflush(preview.out);
  free(shown);
  preview.shown = down;
}
