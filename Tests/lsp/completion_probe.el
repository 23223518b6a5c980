;;; completion_probe.el --- eglot's completion as typed, in batch mode  -*- lexical-binding: t -*-
;; Loaded after the man page's configuration (-l init.el): opens the .hand
;; file named by $HANDSH_PROBE_FILE and, for each line typed, asks eglot's
;; completion table (what `completion-at-point' filters with the user's
;; completion styles) for what matches the word typed, then completes
;; `add kh' as a user does, and reports to $HANDSH_PROBE_OUT.

(defvar probe-out (getenv "HANDSH_PROBE_OUT"))

(defun probe-say (format-string &rest arguments)
  (write-region (concat (apply #'format format-string arguments) "\n") nil probe-out t 'quiet))

(defun probe-wait (condition seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (< (float-time) deadline) (not (funcall condition)))
      (accept-process-output nil 0.05)
      (run-hooks 'post-command-hook))
    (funcall condition)))

(find-file (getenv "HANDSH_PROBE_FILE"))
(probe-say "server %s" (and (probe-wait (lambda () (and (fboundp 'eglot-current-server)
                                                        (eglot-current-server)))
                                        15)
                            t))
(dolist (typed '("add k" "add t" "add kh" "de"))
  (erase-buffer)
  (insert typed)
  (accept-process-output nil 0.3)
  (run-hooks 'post-command-hook)
  (accept-process-output nil 0.3)
  (let* ((capf (eglot-completion-at-point))
         (start (nth 0 capf)) (end (nth 1 capf)) (table (nth 2 capf))
         (word (buffer-substring-no-properties start end))
         (found (condition-case problem
                    (completion-all-completions word table nil (length word))
                  (error (format "error %S" problem)))))
    (when (consp found) (setcdr (last found) nil))
    (probe-say "%s: %s" typed
               (if (stringp found) found
                 (mapconcat #'substring-no-properties (sort found #'string<) " ")))))
;; As typed: `add kh', then M-x completion-at-point: the buffer reads on.
(erase-buffer)
(insert "add kh")
(accept-process-output nil 0.3)
(run-hooks 'post-command-hook)
(accept-process-output nil 0.3)
(condition-case problem (completion-at-point)
  (error (probe-say "completion-at-point error %S" problem)))
(probe-say "buffer %s" (buffer-substring-no-properties (point-min) (point-max)))
(set-buffer-modified-p nil)
(kill-emacs 0)
