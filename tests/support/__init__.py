"""What the tests share, and nothing else: the page object and local servers (figure_page), the
three engines' drivers (engines), a copy of the sources built as a new user would (source_tree), axe-core
(axe), numbers compared within a tolerance (numbers) and the checks that hold for any model folder
(model_folder). Test modules import from here, never from one another (but test_every_case_has_a_test.py,
which checks that each case has its test)."""
