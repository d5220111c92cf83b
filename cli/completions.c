/* completions.c — `shb completions bash|zsh|fish`.
 *
 * Each script is written from cli.c's tables (cli_option, cli_subcommand),
 * so a new option completes in every shell without a change here. Each
 * shell gets its own idiom: for bash a function driven by COMP_WORDS (with
 * bash-completion's helpers when they are loaded, plain compgen when not),
 * for zsh an _arguments spec, for fish `complete` lines. Values complete only
 * where there is something to offer: methods, @file for -d, paths, shells;
 * a number or a duration is left to the user. */
#include "cli/completions.h"

#include <stdbool.h>
#include <string.h>

#include "cli/cli.h"

#define SUMMARY_MAX 200

/* 'text' for bash and zsh: a quote is '\''. */
static void put_sh_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

/* 'text' for fish, whose single quotes know two escapes: \\ and \'. */
static void put_fish_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* ------------------------------------------------------------------ bash */

/* "-c|--connections" (sep "|") or "-c --connections" (sep " "). */
static void put_names(FILE *f, const struct cli_option *op, const char *sep)
{
    if (op->short_name)
        fprintf(f, "-%c%s", op->short_name, sep);
    fprintf(f, "--%s", op->long_name);
}

/* The bash statement that completes a value or an operand of this kind. */
static void bash_complete_value(FILE *f, enum cli_complete kind, const char *words)
{
    switch (kind) {
    case CLI_COMPLETE_NONE: fputs(":", f); break;
    case CLI_COMPLETE_FILE: fputs("_shb_files", f); break;
    case CLI_COMPLETE_BODY: fputs("[[ $cur == @* ]] && _shb_at_files", f); break;
    case CLI_COMPLETE_WORDS:
        fputs("COMPREPLY=($(compgen -W ", f);
        put_sh_quoted(f, words ? words : "");
        fputs(" -- \"$cur\"))", f);
        break;
    }
}

/* One case arm for every value option of this kind (words: one arm each). */
static void bash_value_arms(FILE *f, enum cli_complete kind)
{
    const struct cli_option *op;
    bool open = false;
    for (size_t i = 0; (op = cli_option(i)); i++) {
        if (!op->value_name || op->complete != kind)
            continue;
        fputs(open ? "|" : "    ", f);
        put_names(f, op, "|");
        open = true;
        if (kind == CLI_COMPLETE_WORDS) {
            fputs(")\n        ", f);
            bash_complete_value(f, kind, op->words);
            fputs("\n        return ;;\n", f);
            open = false;
        }
    }
    if (open) {
        fputs(")\n        ", f);
        bash_complete_value(f, kind, NULL);
        fputs("\n        return ;;\n", f);
    }
}

static void write_bash(FILE *f)
{
    const struct cli_option *op;
    const struct cli_subcommand *sc;

    fputs("# bash completion for shb: written by `shb completions bash` (see shb(1)).\n"
          "# bash-completion loads it from share/bash-completion/completions/shb;\n"
          "# by hand: source <(shb completions bash)\n"
          "\n"
          "_shb_files()\n"
          "{\n"
          "    if declare -F _filedir >/dev/null; then\n"
          "        _filedir\n"
          "    else\n"
          "        compopt -o filenames 2>/dev/null\n"
          "        local IFS=$'\\n'\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "\n"
          "# -d @file: a path after the @.\n"
          "_shb_at_files()\n"
          "{\n"
          "    local IFS=$'\\n' f\n"
          "    COMPREPLY=()\n"
          "    for f in $(compgen -f -- \"${cur#@}\"); do\n"
          "        [[ -d $f ]] && f+=/\n"
          "        COMPREPLY+=(\"@$f\")\n"
          "    done\n"
          "    [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]] && compopt -o nospace 2>/dev/null\n"
          "}\n"
          "\n"
          "_shb()\n"
          "{\n"
          "    local cur prev words cword split=false\n"
          "    if declare -F _init_completion >/dev/null; then\n"
          "        _init_completion -s || return\n"
          "    else\n"
          "        words=(\"${COMP_WORDS[@]}\")\n"
          "        cword=$COMP_CWORD\n"
          "        cur=${words[cword]}\n"
          "        prev=${words[cword-1]}\n"
          "        # Without bash-completion, --name=value comes as three words.\n"
          "        if [[ $cur == = ]]; then\n"
          "            cur=\n"
          "        elif [[ $prev == = ]] && ((cword >= 2)); then\n"
          "            prev=${words[cword-2]}\n"
          "        fi\n"
          "    fi\n"
          "\n"
          "    case ${words[1]-} in\n",
          f);
    for (size_t i = 0; (sc = cli_subcommand(i)); i++) {
        fprintf(f,
                "    %s)\n"
                "        if ((cword > 1)); then\n",
                sc->name);
        if (sc->noptions) {
            fputs("            if [[ $cur == -* ]]; then\n"
                  "                COMPREPLY=($(compgen -W '",
                  f);
            for (size_t k = 0; k < sc->noptions; k++) {
                if (k)
                    fputc(' ', f);
                put_names(f, &sc->options[k], " ");
            }
            fputs("' -- \"$cur\"))\n"
                  "            else\n"
                  "                ",
                  f);
            bash_complete_value(f, sc->complete, sc->words);
            fputs("\n            fi\n", f);
        } else {
            fputs("            ", f);
            bash_complete_value(f, sc->complete, sc->words);
            fputc('\n', f);
        }
        fputs("            return\n"
              "        fi\n"
              "        ;;\n",
              f);
    }
    fputs("    esac\n"
          "\n"
          "    case $prev in\n",
          f);
    bash_value_arms(f, CLI_COMPLETE_WORDS);
    bash_value_arms(f, CLI_COMPLETE_BODY);
    bash_value_arms(f, CLI_COMPLETE_FILE);
    bash_value_arms(f, CLI_COMPLETE_NONE);
    fputs("    esac\n"
          "    $split && return\n"
          "\n"
          "    if [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W '",
          f);
    for (size_t i = 0; (op = cli_option(i)); i++) {
        if (i)
            fputc(' ', f);
        put_names(f, op, " ");
    }
    fputs("' -- \"$cur\"))\n"
          "    elif ((cword == 1)); then\n"
          "        COMPREPLY=($(compgen -W '",
          f);
    for (size_t i = 0; (sc = cli_subcommand(i)); i++)
        fprintf(f, "%s%s", i ? " " : "", sc->name);
    fputs("' -- \"$cur\"))\n"
          "    fi\n"
          "} &&\n"
          "    complete -F _shb shb\n",
          f);
}

/* ------------------------------------------------------------------- zsh */

/* An _arguments explanation: inside [...] a ], [, : or \ is escaped, and
 * the whole spec sits in '...'. */
static void put_zsh_explanation(FILE *f, const char *help)
{
    char sum[SUMMARY_MAX];
    cli_help_summary(help, sum, sizeof sum);
    fputc('[', f);
    for (const char *c = sum; *c; c++) {
        if (*c == '\'')
            fputs("'\\''", f);
        else {
            if (strchr("[]:\\", *c))
                fputc('\\', f);
            fputc(*c, f);
        }
    }
    fputc(']', f);
}

/* ":MESSAGE:ACTION" for an option's value or an operand. */
static void put_zsh_action(FILE *f, const char *message, enum cli_complete kind, const char *words)
{
    fputc(':', f);
    for (const char *c = message; *c; c++) { /* a ':' would end the message (USER[:PASSWORD]) */
        if (*c == ':')
            fputc('\\', f);
        fputc(*c, f);
    }
    fputc(':', f);
    switch (kind) {
    case CLI_COMPLETE_NONE: fputc(' ', f); break; /* a message, nothing to complete */
    case CLI_COMPLETE_FILE: fputs("_files", f); break;
    case CLI_COMPLETE_BODY: fputs("_shb_body", f); break;
    case CLI_COMPLETE_WORDS: fprintf(f, "(%s)", words ? words : ""); break;
    }
}

/* One _arguments spec line: '(-c --connections)'{-c+,--connections=}'[...]:VALUE: '. */
static void zsh_option_spec(FILE *f, const char *indent, const struct cli_option *op)
{
    const char *arg_short = op->value_name ? "+" : "", *arg_long = op->value_name ? "=" : "";
    fputs(indent, f);
    if (op->repeatable)
        fputs("'*'", f);
    else if (op->short_name)
        fprintf(f, "'(-%c --%s)'", op->short_name, op->long_name);
    if (op->short_name)
        fprintf(f, "{-%c%s,--%s%s}'", op->short_name, arg_short, op->long_name, arg_long);
    else
        fprintf(f, "'--%s%s", op->long_name, arg_long);
    put_zsh_explanation(f, op->help);
    if (op->value_name)
        put_zsh_action(f, op->value_name, op->complete, op->words);
    fputs("' \\\n", f);
}

static void write_zsh(FILE *f)
{
    const struct cli_option *op;
    const struct cli_subcommand *sc;

    fputs("#compdef shb\n"
          "# zsh completion for shb: written by `shb completions zsh` (see shb(1)).\n"
          "# Install it as _shb in a directory of $fpath, before compinit runs.\n"
          "\n"
          "# -d: the body itself, or @ and a path.\n"
          "_shb_body() {\n"
          "  if compset -P '@'; then\n"
          "    _files\n"
          "  else\n"
          "    _message 'request body, @file to read a file, @- to read stdin'\n"
          "  fi\n"
          "}\n"
          "\n"
          "_shb_url() {\n"
          "  compadd -S '' -- http:// https://\n"
          "}\n"
          "\n"
          "_shb_first() {\n"
          "  _alternative \\\n"
          "    'subcommands:subcommand:((",
          f);
    for (size_t i = 0; (sc = cli_subcommand(i)); i++) {
        char sum[SUMMARY_MAX];
        cli_help_summary(sc->help, sum, sizeof sum);
        fprintf(f, "%s%s\\:\"", i ? " " : "", sc->name);
        for (const char *c = sum; *c; c++) {
            if (*c == '\'')
                fputs("'\\''", f);
            else {
                if (strchr("\"\\:`$", *c))
                    fputc('\\', f);
                fputc(*c, f);
            }
        }
        fputc('"', f);
    }
    fputs("))' \\\n"
          "    'urls:URL:_shb_url'\n"
          "}\n"
          "\n"
          "_shb() {\n"
          "  if (( CURRENT > 2 )); then\n"
          "    case $words[2] in\n",
          f);
    for (size_t i = 0; (sc = cli_subcommand(i)); i++) {
        fprintf(f,
                "      (%s)\n"
                "        shift words\n"
                "        (( CURRENT-- ))\n"
                "        _arguments -s \\\n",
                sc->name);
        for (size_t k = 0; k < sc->noptions; k++)
            zsh_option_spec(f, "          ", &sc->options[k]);
        /* Operands: "*" for many (merge FILE...), "1" for one. */
        fprintf(f, "          '%s", strstr(sc->synopsis, "...") ? "*" : "1");
        put_zsh_action(f, sc->operand, sc->complete, sc->words);
        fputs("'\n"
              "        return ;;\n",
              f);
    }
    fputs("    esac\n"
          "  fi\n"
          "  _arguments -s -S \\\n",
          f);
    for (size_t i = 0; (op = cli_option(i)); i++)
        zsh_option_spec(f, "    ", op);
    fputs("    '1: :_shb_first'\n"
          "}\n"
          "\n"
          "if [ \"$funcstack[1]\" = \"_shb\" ]; then\n"
          "  _shb \"$@\"\n"
          "else\n"
          "  compdef _shb shb\n"
          "fi\n",
          f);
}

/* ------------------------------------------------------------------ fish */

/* -x/-r and -a for a value of this kind; NONE completes nothing (-x alone). */
static void fish_value(FILE *f, enum cli_complete kind, const char *words)
{
    switch (kind) {
    case CLI_COMPLETE_NONE: fputs(" -x", f); break;
    case CLI_COMPLETE_FILE: fputs(" -r -F", f); break;
    case CLI_COMPLETE_BODY: fputs(" -x -a '(__shb_body)'", f); break;
    case CLI_COMPLETE_WORDS:
        fputs(" -x -a ", f);
        put_fish_quoted(f, words ? words : "");
        break;
    }
}

static void fish_option(FILE *f, const char *condition, const struct cli_option *op)
{
    char sum[SUMMARY_MAX];
    fprintf(f, "complete -c shb -n '%s'", condition);
    if (op->short_name)
        fprintf(f, " -s %c", op->short_name);
    fprintf(f, " -l %s", op->long_name);
    if (op->value_name)
        fish_value(f, op->complete, op->words);
    cli_help_summary(op->help, sum, sizeof sum);
    fputs(" -d ", f);
    put_fish_quoted(f, sum);
    fputc('\n', f);
}

static void write_fish(FILE *f)
{
    const struct cli_option *op;
    const struct cli_subcommand *sc;

    fputs("# fish completion for shb: written by `shb completions fish` (see shb(1)).\n"
          "# fish loads it from share/fish/vendor_completions.d/shb.fish.\n"
          "\n"
          "# __shb_sub NAME: the command line is `shb NAME ...`; with no NAME: it is\n"
          "# no subcommand's.\n"
          "function __shb_sub -a name\n"
          "    set -l w (commandline -opc)\n"
          "    if test -n \"$name\"\n"
          "        test \"$w[2]\" = \"$name\"\n"
          "    else\n"
          "        not contains -- \"$w[2]\"",
          f);
    for (size_t i = 0; (sc = cli_subcommand(i)); i++)
        fprintf(f, " %s", sc->name);
    fputs("\n"
          "    end\n"
          "end\n"
          "\n"
          "# -d: @ and a path.\n"
          "function __shb_body\n"
          "    set -l t (commandline -ct)\n"
          "    string match -q -- '@*' $t; or return\n"
          "    for p in (__fish_complete_path (string sub -s 2 -- $t))\n"
          "        printf '@%s\\n' $p\n"
          "    end\n"
          "end\n"
          "\n"
          "# The operand is a URL: no file names unless an option wants one.\n"
          "complete -c shb -f\n",
          f);
    for (size_t i = 0; (sc = cli_subcommand(i)); i++) {
        char sum[SUMMARY_MAX], cond[96];
        cli_help_summary(sc->help, sum, sizeof sum);
        fprintf(f, "complete -c shb -n 'test (count (commandline -opc)) -eq 1' -a %s -d ", sc->name);
        put_fish_quoted(f, sum);
        fputc('\n', f);
        snprintf(cond, sizeof cond, "__shb_sub %s", sc->name);
        for (size_t k = 0; k < sc->noptions; k++)
            fish_option(f, cond, &sc->options[k]);
        fprintf(f, "complete -c shb -n '%s'", cond);
        if (sc->complete == CLI_COMPLETE_FILE)
            fputs(" -F", f);
        else if (sc->complete == CLI_COMPLETE_WORDS) {
            fputs(" -a ", f);
            put_fish_quoted(f, sc->words ? sc->words : "");
        }
        fputc('\n', f);
    }
    for (size_t i = 0; (op = cli_option(i)); i++)
        fish_option(f, "__shb_sub", op);
}

int completions_write(FILE *f, const char *shell)
{
    if (strcmp(shell, "bash") == 0)
        write_bash(f);
    else if (strcmp(shell, "zsh") == 0)
        write_zsh(f);
    else if (strcmp(shell, "fish") == 0)
        write_fish(f);
    else
        return -1;
    return 0;
}
