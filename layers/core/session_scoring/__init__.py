"""session_scoring: grade the methodology of a finished TARSy investigation with a judge LLM.

The package is the core library shared by the API and scorer Lambdas (deployed as a layer). Dependencies point one
way: services -> (repositories, judge, sources, resilience, queue) -> models -> settings/errors.
"""

__version__ = "0.1.0"
