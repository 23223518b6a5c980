;;; config_probe.el --- Emacs in batch mode, configured by the man page  -*- lexical-binding: t -*-
;; Loaded after the man page's configuration (-l init.el): opens the .hand
;; file named by $HANDSH_PROBE_FILE, which the configuration hands to
;; eglot, and reports to $HANDSH_PROBE_OUT, one line per step: the mode,
;; the server, the diagnostics (through Flymake), the hover on line 2, the
;; code actions there, the buffer after `M-x eglot-code-actions RET' (the
;; answer comes from stdin: Return, the default), and the diagnostics gone.

(defvar probe-out (getenv "HANDSH_PROBE_OUT"))

(defun probe-say (format-string &rest arguments)
  (write-region (concat (apply #'format format-string arguments) "\n") nil probe-out t 'quiet))

(defun probe-idle ()
  "What Emacs does while the user pauses: batch mode never idles."
  (run-hooks 'post-command-hook)
  (dolist (timer (copy-sequence timer-idle-list))
    (timer-event-handler timer)))

(defun probe-wait (condition seconds)
  "Waits up to SECONDS for CONDITION, letting processes and timers run."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (< (float-time) deadline) (not (funcall condition)))
      (accept-process-output nil 0.05)
      (probe-idle))
    (funcall condition)))

(find-file (getenv "HANDSH_PROBE_FILE"))
(probe-say "mode %s" major-mode)
(probe-say "server %s" (and (probe-wait (lambda () (and (fboundp 'eglot-current-server)
                                                        (eglot-current-server)))
                                        15)
                            t))
(probe-say "diagnostics %s" (and (probe-wait #'flymake-diagnostics 15) t))
(dolist (diagnostic (flymake-diagnostics))
  (probe-say "at %d %s %s"
             (line-number-at-pos (flymake-diagnostic-beg diagnostic))
             (flymake-diagnostic-type diagnostic)
             (replace-regexp-in-string "\n" "|" (flymake-diagnostic-text diagnostic))))
(goto-char (point-min))
(forward-line 1)
(let (hover)
  (eglot-hover-eldoc-function (lambda (info &rest _) (setq hover (or info ""))))
  (probe-wait (lambda () hover) 10)
  (probe-say "hover %s" (car (split-string (or hover "") "\n"))))
(dolist (action (eglot-code-actions (point)))
  (probe-say "action %s%s" (plist-get action :title)
             (if (plist-get action :isPreferred) " (preferred)" "")))
;; As typed: M-x eglot-code-actions, then Return for the default.
(let ((last-nonmenu-event ?\r))
  (call-interactively #'eglot-code-actions))
(probe-say "line 3 %s" (progn (goto-char (point-min)) (forward-line 2)
                              (buffer-substring (point) (line-end-position))))
(probe-say "cleared %s" (and (probe-wait (lambda () (null (flymake-diagnostics))) 15) t))
(set-buffer-modified-p nil)
(kill-emacs 0)
