// The locale the prompt edits in (handsh(1), THE PROMPT): UTF-8 whatever
// the environment says, so that typed characters are edited whole.
#include "handsh_prompt.h"

#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

static int locale_is_utf8(void) {
  const char *codeset = nl_langinfo(CODESET);
  return codeset != NULL && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}

void handsh_use_utf8_locale(void) {
  setlocale(LC_ALL, "");
  if (locale_is_utf8()) return;
  static const char *const fallbacks[] = {"C.UTF-8", "C.utf8", "UTF-8"};
  for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0]; i++) {
    if (setlocale(LC_CTYPE, fallbacks[i]) != NULL && locale_is_utf8()) {
      // Readline sets LC_CTYPE again from the environment each time it
      // starts a line (LC_ALL first), so the environment must say it too.
      // The other categories keep what LC_ALL gave them above.
      setenv("LC_CTYPE", fallbacks[i], 1);
      unsetenv("LC_ALL");
      return;
    }
  }
  setlocale(LC_CTYPE, "");
}
