;;; emacs_eglot_session.el --- skillkit's server in Emacs + Eglot, in batch  -*- lexical-binding: t -*-

;; Loads SKILLKIT_CONFIG (the Eglot configuration of docs/guides/editors.md), opens
;; SKILLKIT_FILE (a SKILL.md), waits for the server's diagnostics to reach
;; Flymake, asks for the hover on the `description' key through Eglot's own
;; eldoc function, and writes what it saw as JSON to SKILLKIT_OUT.  Run by
;; tests/editors/test_emacs_eglot.py as `emacs --batch -l THIS-FILE'.

(require 'eglot)
(require 'markdown-mode)
(require 'json)

(defvar skillkit-seen nil "What the session saw, an alist written as JSON.")
(defvar skillkit-errors nil "Stages that failed, with their error.")

(defun skillkit-wait (what predicate &optional seconds)
  "Process server output until PREDICATE returns non-nil, at most SECONDS."
  (let ((deadline (+ (float-time) (or seconds 60)))
        value)
    (while (and (not (setq value (funcall predicate)))
                (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless value
      (push (cons what "timed out") skillkit-errors))
    value))

(defun skillkit-write ()
  "Write what the session saw to SKILLKIT_OUT."
  (push (cons "errors" (or skillkit-errors (make-hash-table))) skillkit-seen)
  (with-temp-file (getenv "SKILLKIT_OUT")
    (let ((json-encoding-pretty-print nil))
      (insert (json-encode skillkit-seen)))))

;; The guide's configuration, as a user's init file has it (the test's interpreter in
;; place of `python3').
(load (getenv "SKILLKIT_CONFIG") nil t)

(condition-case err
    (progn
      (find-file (getenv "SKILLKIT_FILE"))
      (switch-to-buffer (current-buffer))
      (push (cons "major_mode" (symbol-name major-mode)) skillkit-seen)
      ;; What `M-x eglot' does, without its prompts.
      (apply #'eglot (eglot--guess-contact))
      (skillkit-wait "connect" (lambda () (and (eglot-current-server) eglot--managed-mode)))
      (let ((server (eglot-current-server)))
        (push (cons "server" (and server (jsonrpc-name server))) skillkit-seen)
        (push (cons "server_root"
                    (and server (expand-file-name (project-root (eglot--project server)))))
              skillkit-seen))
      ;; Flymake starts on an idle timer, which batch mode never reaches: start it.
      (skillkit-wait "diagnostics"
                     (lambda ()
                       (flymake-start)
                       (flymake-diagnostics)))
      (push (cons "diagnostics"
                  (vconcat
                   (mapcar (lambda (d)
                             `(("text" . ,(flymake-diagnostic-text d))
                               ("type" . ,(symbol-name (flymake-diagnostic-type d)))
                               ("line" . ,(line-number-at-pos (flymake-diagnostic-beg d)))))
                           (flymake-diagnostics))))
            skillkit-seen)
      (goto-char (point-min))
      (search-forward "description:")
      (goto-char (match-beginning 0))
      (let (hover)
        (eglot-hover-eldoc-function (lambda (info &rest _) (setq hover (or info ""))))
        (skillkit-wait "hover" (lambda () hover) 30)
        (push (cons "hover" hover) skillkit-seen))
      (eglot-shutdown (eglot-current-server)))
  (error (push (cons "session" (error-message-string err)) skillkit-errors)))

(skillkit-write)
(kill-emacs 0)
;;; emacs_eglot_session.el ends here
