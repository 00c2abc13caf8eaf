//! Settings one way. Every crate's settings are a [`clap::Args`] struct: each field reads a
//! command-line flag or an environment variable (`env = "..."`) and has a documented default.
//! Values are parsed by clap (an unparsable value is an error naming the flag and the
//! variable) and then checked by [`Settings::validate`] before anything starts.
//!
//! `POLICY_CONFIG` may name a TOML file; [`apply_config_file`] turns its keys (a variable's
//! name in lower case, without the `POLICY_` prefix: `top_k` for `POLICY_TOP_K`) into the
//! values of variables that are not set. Precedence: flag > variable > file > default.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use clap::{Args, FromArgMatches, Parser};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// clap's message: names the flag, the variable and the value.
    #[error("{0}")]
    Parse(String),
    #[error("{variable}: {reason}")]
    Invalid {
        variable: &'static str,
        reason: String,
    },
    #[error("POLICY_CONFIG={path}: {reason}")]
    File { path: String, reason: String },
}

impl SettingsError {
    pub fn invalid(variable: &'static str, reason: impl Into<String>) -> SettingsError {
        SettingsError::Invalid {
            variable,
            reason: reason.into(),
        }
    }
}

/// The command line of a settings struct alone: how a library reads its settings from the
/// environment without a CLI around it.
#[derive(Parser)]
#[command(no_binary_name = true)]
struct Only<T: Args> {
    #[command(flatten)]
    settings: T,
}

pub trait Settings: Args + FromArgMatches + Sized {
    /// Checks what clap cannot (ranges, relations between fields). Errors name the variable.
    fn validate(&self) -> Result<(), SettingsError> {
        Ok(())
    }

    /// Defaults overridden by the environment, validated.
    fn from_env() -> Result<Self, SettingsError> {
        Self::from_args(std::iter::empty::<String>())
    }

    /// As from a command line of only these settings' flags (tests), then the environment.
    fn from_args<I, S>(args: I) -> Result<Self, SettingsError>
    where
        I: IntoIterator<Item = S>,
        S: Into<std::ffi::OsString> + Clone,
    {
        let only = Only::<Self>::try_parse_from(args).map_err(|e| {
            SettingsError::Parse(explain(
                &e,
                &<Only<Self> as clap::CommandFactory>::command(),
            ))
        })?;
        only.settings.validate()?;
        Ok(only.settings)
    }
}

/// clap's message for a parse error, naming the environment variable the bad value came from
/// when it came from one (clap itself names only the flag).
pub fn explain(error: &clap::Error, command: &clap::Command) -> String {
    let message = error.render().to_string().trim().to_string();
    let Some(clap::error::ContextValue::String(flag)) =
        error.get(clap::error::ContextKind::InvalidArg)
    else {
        return message;
    };
    let variable = all_arguments(command)
        .into_iter()
        .filter(|arg| {
            arg.get_long().is_some_and(|long| {
                flag.starts_with(&format!("--{long} ")) || *flag == format!("--{long}")
            })
        })
        .find_map(|arg| arg.get_env().and_then(|e| e.to_str()).map(str::to_string));
    match variable {
        Some(variable) if std::env::var_os(&variable).is_some() => {
            format!(
                "{message}
(the value comes from the environment variable {variable})"
            )
        }
        _ => message,
    }
}

fn all_arguments(command: &clap::Command) -> Vec<&clap::Arg> {
    let mut args: Vec<&clap::Arg> = command.get_arguments().collect();
    for sub in command.get_subcommands() {
        args.extend(all_arguments(sub));
    }
    args
}

/// One environment variable a command reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    pub help: String,
    /// The default as clap shows it, if any.
    pub default: Option<String>,
}

/// Every environment variable `command` and its subcommands read, by name.
pub fn variables(command: &clap::Command) -> BTreeMap<String, Variable> {
    let mut found = BTreeMap::new();
    collect(command, &mut found);
    found
}

fn collect(command: &clap::Command, found: &mut BTreeMap<String, Variable>) {
    for arg in command.get_arguments() {
        let Some(name) = arg.get_env().and_then(|n| n.to_str()) else {
            continue;
        };
        let default = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect::<Vec<_>>();
        found.entry(name.to_string()).or_insert_with(|| Variable {
            name: name.to_string(),
            help: arg.get_help().map(|h| h.to_string()).unwrap_or_default(),
            default: (!default.is_empty()).then(|| default.join(",")),
        });
    }
    for sub in command.get_subcommands() {
        collect(sub, found);
    }
}

/// The TOML key of a variable: lower case, without the `POLICY_` prefix.
pub fn file_key(variable: &str) -> String {
    let lower = variable.to_ascii_lowercase();
    lower
        .strip_prefix("policy_")
        .map(str::to_string)
        .unwrap_or(lower)
}

/// Reads the TOML file named by `POLICY_CONFIG` (if set) and sets each variable it names that
/// is not set already. `known` are the variables the program reads: any other key is an error.
/// Call it first thing in `main`, before any thread exists (it sets environment variables).
pub fn apply_config_file(known: &BTreeSet<String>) -> Result<Option<PathBuf>, SettingsError> {
    let Some(path) = std::env::var_os("POLICY_CONFIG").filter(|p| !p.is_empty()) else {
        return Ok(None);
    };
    let path = PathBuf::from(path);
    let fail = |reason: String| SettingsError::File {
        path: path.display().to_string(),
        reason,
    };
    let text = std::fs::read_to_string(&path).map_err(|e| fail(e.to_string()))?;
    for (variable, value) in file_values(&text, known).map_err(fail)? {
        if std::env::var_os(&variable).is_none() {
            // Single-threaded here (see above), so setting the environment is sound.
            std::env::set_var(&variable, value);
        }
    }
    Ok(Some(path))
}

/// (variable, value) for every key of a settings file; unknown keys are errors.
pub fn file_values(text: &str, known: &BTreeSet<String>) -> Result<Vec<(String, String)>, String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string())?;
    let by_key: BTreeMap<String, &String> = known.iter().map(|v| (file_key(v), v)).collect();
    let mut values = Vec::new();
    for (key, value) in table {
        let Some(variable) = by_key.get(&key) else {
            return Err(format!(
                "unknown key `{key}` (known: {})",
                by_key.keys().cloned().collect::<Vec<_>>().join(", ")
            ));
        };
        let text = match value {
            toml::Value::String(s) => s,
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            _ => {
                return Err(format!(
                    "`{key}`: not a plain value (string, number or boolean)"
                ))
            }
        };
        values.push(((*variable).clone(), text));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Args)]
    struct Example {
        /// Clauses retrieved per turn.
        #[arg(
            long = "example-top-k",
            env = "POLICY_EXAMPLE_TOP_K",
            default_value_t = 5
        )]
        top_k: usize,
        /// Broker.
        #[arg(
            long = "example-bootstrap",
            env = "EXAMPLE_BOOTSTRAP",
            default_value = "127.0.0.1:9092"
        )]
        bootstrap: String,
    }

    impl Settings for Example {
        fn validate(&self) -> Result<(), SettingsError> {
            if self.top_k == 0 {
                return Err(SettingsError::invalid(
                    "POLICY_EXAMPLE_TOP_K",
                    "must be positive",
                ));
            }
            Ok(())
        }
    }

    #[test]
    fn defaults_flags_and_validation() {
        let e = Example::from_args(["--example-top-k", "3"]).unwrap();
        assert_eq!((e.top_k, e.bootstrap.as_str()), (3, "127.0.0.1:9092"));
        let err = Example::from_args(["--example-top-k", "0"]).unwrap_err();
        assert_eq!(err.to_string(), "POLICY_EXAMPLE_TOP_K: must be positive");
    }

    #[test]
    fn an_unparsable_value_names_the_flag_and_the_variable() {
        let err = Example::from_args(["--example-top-k", "many"]).unwrap_err();
        assert!(err.to_string().contains("--example-top-k"), "{err}");
        #[derive(Debug, Clone, PartialEq, Args)]
        struct FromEnv {
            #[arg(
                long = "from-env-n",
                env = "POLICY_SETTINGS_TEST_N",
                default_value_t = 1
            )]
            n: u32,
        }
        impl Settings for FromEnv {}
        std::env::set_var("POLICY_SETTINGS_TEST_N", "many");
        let err = FromEnv::from_env().unwrap_err().to_string();
        assert!(err.contains("invalid value 'many'"), "{err}");
        assert!(
            err.contains("environment variable POLICY_SETTINGS_TEST_N"),
            "{err}"
        );
    }

    #[test]
    fn variables_are_listed_with_help_and_default() {
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            example: Example,
        }
        let vars = variables(&<Cli as clap::CommandFactory>::command());
        let top_k = &vars["POLICY_EXAMPLE_TOP_K"];
        assert_eq!(top_k.help, "Clauses retrieved per turn");
        assert_eq!(top_k.default.as_deref(), Some("5"));
        assert!(vars.contains_key("EXAMPLE_BOOTSTRAP"));
    }

    #[test]
    fn file_keys_map_to_variables_and_unknown_keys_are_refused() {
        let known: BTreeSet<String> = ["POLICY_TOP_K", "KAFKA_BOOTSTRAP"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let values = file_values("top_k = 3\nkafka_bootstrap = \"b:9092\"", &known).unwrap();
        assert!(values.contains(&("POLICY_TOP_K".into(), "3".into())));
        assert!(values.contains(&("KAFKA_BOOTSTRAP".into(), "b:9092".into())));
        let err = file_values("top_kk = 3", &known).unwrap_err();
        assert!(err.contains("unknown key `top_kk`"), "{err}");
    }
}
