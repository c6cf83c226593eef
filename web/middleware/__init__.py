"""What wraps every request before a route sees it: body limits, headers, URL checks."""
