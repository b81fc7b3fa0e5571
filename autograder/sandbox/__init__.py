"""Code that runs next to student code, inside the sandbox.

Everything in this package may be read by a submission: it holds no expected values and no
reference solutions. It is mounted read-only into the sandbox, and the notebook grade cells
import the same modules under nbgrader, so both grading paths run identical probes.
It imports nothing from the rest of `autograder`.
"""
